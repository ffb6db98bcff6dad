// Sign in, or create an account: one form, two modes.
import { useState } from "react";
import { api, setSession } from "../api.ts";
import type { Session } from "../api-types.ts";
import { ErrorLine, fieldError, formError, InputField } from "../components.tsx";
import { email, maxLength, required, text, useForm } from "../forms.ts";
import { loadSignedIn } from "../signed-in-chunk.ts";

export function SignIn() {
  const [creating, setCreating] = useState(false);
  const form = useForm({
    check: (values) => [
      ...(creating ? [{ field: "name", label: "Name", value: text(values, "name"), checks: [maxLength(200)] }] : []),
      { field: "email", label: "Email", value: text(values, "email"), checks: [required, email] },
      { field: "password", label: "Password", value: text(values, "password"), checks: [required] },
    ],
    send: async (values) => {
      const body: Record<string, string> = { email: text(values, "email"), password: text(values, "password") };
      if (creating && values.get("name")) body.name = text(values, "name");
      loadSignedIn(); // beside the request: the app is there when the session is
      const session = await api.post<Session>(creating ? "auth/register" : "auth/login", body);
      setSession({ token: session.token, user: session.user });
    },
  });
  const error = form.error;

  return (
    <main className="auth">
      <h1>agent-platform</h1>
      <form {...form.props} className="card">
        <h2>{creating ? "Create account" : "Sign in"}</h2>
        {creating && <InputField label="Name" error={fieldError(error, "name")} name="name" autoComplete="name" />}
        <InputField
          label="Email"
          error={fieldError(error, "email")}
          name="email"
          type="email"
          autoComplete="email"
          required
        />
        <InputField
          label="Password"
          error={fieldError(error, "password")}
          hint={creating ? "At least 8 characters, at most 72 bytes." : undefined}
          name="password"
          type="password"
          autoComplete={creating ? "new-password" : "current-password"}
          required
        />
        <ErrorLine error={formError(error, ["name", "email", "password"])} />
        <button type="submit" className="primary" disabled={form.busy}>
          {creating ? "Create account" : "Sign in"}
        </button>
        <p className="muted">
          {creating ? "Have an account? " : "New here? "}
          <button
            type="button"
            className="link"
            onClick={() => {
              setCreating(!creating);
              form.setError(undefined);
            }}
          >
            {creating ? "Sign in instead" : "Create an account"}
          </button>
        </p>
      </form>
    </main>
  );
}
