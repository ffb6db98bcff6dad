// The New issue dialog: Title, Description, Assignee (members and agents), Priority; errors next to their field.
import { type FormEvent, useState } from "react";
import { api } from "../api.ts";
import { type Issue, PRIORITIES } from "../api-types.ts";
import { Dialog, ErrorLine, Field, fieldError, formError } from "../components.tsx";
import { AssigneeOptions, assigneeFields, useWorkspace } from "../workspace.tsx";

const TITLE_LIMIT = 500;

export function NewIssueDialog({ onClose, onCreated }: { onClose: () => void; onCreated: (issue: Issue) => void }) {
  const ws = useWorkspace();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [title, setTitle] = useState("");

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const description = String(form.get("description") ?? "");
    setBusy(true);
    setError(undefined);
    try {
      const issue = await api.post<Issue>(`workspaces/${ws.id}/issues/`, {
        title,
        ...(description && { description }),
        priority: String(form.get("priority") ?? "none"),
        ...assigneeFields(String(form.get("assignee") ?? "")),
      });
      onCreated(issue);
      onClose();
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  };

  const over = title.length > TITLE_LIMIT;
  return (
    <Dialog title="New issue" onClose={onClose}>
      <form onSubmit={submit} noValidate>
        <Field
          label="Title"
          error={fieldError(error, "title")}
          hint={over ? `${title.length} of ${TITLE_LIMIT} characters: too long` : undefined}
        >
          {(id, describedBy, invalid) => (
            <input
              id={id}
              name="title"
              value={title}
              onChange={(event) => setTitle(event.target.value)}
              aria-describedby={describedBy}
              aria-invalid={invalid || over}
              autoFocus
            />
          )}
        </Field>
        <Field label="Description" error={fieldError(error, "description")} hint="Markdown">
          {(id, describedBy, invalid) => (
            <textarea id={id} name="description" rows={5} aria-describedby={describedBy} aria-invalid={invalid} />
          )}
        </Field>
        <div className="row">
          <Field label="Assignee" error={fieldError(error, "assignee_id", "assignee_type")}>
            {(id, describedBy, invalid) => (
              <select id={id} name="assignee" aria-describedby={describedBy} aria-invalid={invalid}>
                <AssigneeOptions data={ws} />
              </select>
            )}
          </Field>
          <Field label="Priority" error={fieldError(error, "priority")}>
            {(id) => (
              <select id={id} name="priority" defaultValue="none">
                {PRIORITIES.map(([priority, title]) => (
                  <option key={priority} value={priority}>
                    {title}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </div>
        <ErrorLine error={formError(error, ["title", "description", "assignee_id", "assignee_type", "priority"])} />
        <div className="actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={busy}>
            Create issue
          </button>
        </div>
      </form>
    </Dialog>
  );
}
