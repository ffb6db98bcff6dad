// Create a workspace: shown when the user has none, and from the switcher.
import { type FormEvent, useRef, useState } from "react";
import { api } from "../api.ts";
import type { Workspace } from "../api-types.ts";
import { ErrorLine, Field, fieldError, formError } from "../components.tsx";
import { checkForm, maxLength, required, useFocusInvalid } from "../forms.ts";
import { navigate } from "../router.tsx";

export function CreateWorkspace({ onCreated, first }: { onCreated: () => void; first: boolean }) {
  const form = useRef<HTMLFormElement>(null);
  const [error, setError] = useState<unknown>();
  useFocusInvalid(form, error);
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const name = String(new FormData(event.currentTarget).get("name") ?? "");
    const invalid = checkForm([
      { field: "name", label: "Workspace name", value: name, checks: [required, maxLength(200)] },
    ]);
    if (invalid) {
      setError(invalid);
      return;
    }
    setBusy(true);
    try {
      const workspace = await api.post<Workspace>("workspaces/", { name });
      onCreated();
      navigate(`/w/${workspace.id}/board`);
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  };
  return (
    <main className="auth">
      <form ref={form} onSubmit={submit} className="card" noValidate>
        <h2>{first ? "Create your first workspace" : "Create workspace"}</h2>
        <Field label="Workspace name" error={fieldError(error, "name")}>
          {(id, describedBy, invalid) => (
            <input id={id} name="name" required aria-describedby={describedBy} aria-invalid={invalid} />
          )}
        </Field>
        <ErrorLine error={formError(error, ["name"])} />
        <button type="submit" className="primary" disabled={busy}>
          Create workspace
        </button>
      </form>
    </main>
  );
}
