// Create a workspace: shown when the user has none, and from the switcher.
import { api } from "../api.ts";
import type { Workspace } from "../api-types.ts";
import { ErrorLine, fieldError, formError, InputField } from "../components.tsx";
import { maxLength, required, text, useForm } from "../forms.ts";
import { navigate } from "../router.tsx";

export function CreateWorkspace({ onCreated, first }: { onCreated: () => void; first: boolean }) {
  const form = useForm({
    check: (values) => [
      { field: "name", label: "Workspace name", value: text(values, "name"), checks: [required, maxLength(200)] },
    ],
    send: async (values) => {
      const workspace = await api.post<Workspace>("workspaces/", { name: text(values, "name") });
      onCreated();
      navigate(`/w/${workspace.id}/board`);
    },
  });
  return (
    <main className="auth">
      <form {...form.props} className="card">
        <h2>{first ? "Create your first workspace" : "Create workspace"}</h2>
        <InputField label="Workspace name" error={fieldError(form.error, "name")} name="name" required />
        <ErrorLine error={formError(form.error, ["name"])} />
        <button type="submit" className="primary" disabled={form.busy}>
          Create workspace
        </button>
      </form>
    </main>
  );
}
