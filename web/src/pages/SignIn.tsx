// Sign in, or create an account: one form, two modes.
import { type FormEvent, useRef, useState } from "react";
import { api, setSession } from "../api.ts";
import type { Session } from "../api-types.ts";
import { ErrorLine, Field, fieldError, formError } from "../components.tsx";
import { checkForm, email, maxLength, required, useFocusInvalid } from "../forms.ts";

export function SignIn() {
  const [creating, setCreating] = useState(false);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  useFocusInvalid(formRef, error);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const body: Record<string, string> = {
      email: String(form.get("email") ?? ""),
      password: String(form.get("password") ?? ""),
    };
    if (creating && form.get("name")) body.name = String(form.get("name"));
    const invalid = checkForm([
      ...(creating ? [{ field: "name", label: "Name", value: body.name ?? "", checks: [maxLength(200)] }] : []),
      { field: "email", label: "Email", value: body.email!, checks: [required, email] },
      { field: "password", label: "Password", value: body.password!, checks: [required] },
    ]);
    if (invalid) {
      setError(invalid);
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      const session = await api.post<Session>(creating ? "auth/register" : "auth/login", body);
      setSession({ token: session.token, user: session.user });
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="auth">
      <h1>agent-platform</h1>
      <form ref={formRef} onSubmit={submit} className="card" noValidate>
        <h2>{creating ? "Create account" : "Sign in"}</h2>
        {creating && (
          <Field label="Name" error={fieldError(error, "name")}>
            {(id, describedBy, invalid) => (
              <input id={id} name="name" autoComplete="name" aria-describedby={describedBy} aria-invalid={invalid} />
            )}
          </Field>
        )}
        <Field label="Email" error={fieldError(error, "email")}>
          {(id, describedBy, invalid) => (
            <input
              id={id}
              name="email"
              type="email"
              autoComplete="email"
              required
              aria-describedby={describedBy}
              aria-invalid={invalid}
            />
          )}
        </Field>
        <Field
          label="Password"
          error={fieldError(error, "password")}
          hint={creating ? "At least 8 characters, at most 72 bytes." : undefined}
        >
          {(id, describedBy, invalid) => (
            <input
              id={id}
              name="password"
              type="password"
              autoComplete={creating ? "new-password" : "current-password"}
              required
              aria-describedby={describedBy}
              aria-invalid={invalid}
            />
          )}
        </Field>
        <ErrorLine error={formError(error, ["name", "email", "password"])} />
        <button type="submit" className="primary" disabled={busy}>
          {creating ? "Create account" : "Sign in"}
        </button>
        <p className="muted">
          {creating ? "Have an account? " : "New here? "}
          <button
            type="button"
            className="link"
            onClick={() => {
              setCreating(!creating);
              setError(undefined);
            }}
          >
            {creating ? "Sign in instead" : "Create an account"}
          </button>
        </p>
      </form>
    </main>
  );
}
