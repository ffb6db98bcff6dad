// The New issue dialog: Title, Description, Assignee (members and agents), Priority, Project, Labels, Due date; every
// invalid field said at once, in words, next to it.
import { type FormEvent, useRef, useState } from "react";
import { api } from "../api.ts";
import { type Issue, isArchived, PRIORITIES } from "../api-types.ts";
import { Dialog, ErrorLine, Field, fieldError, formError } from "../components.tsx";
import { checkForm, maxLength, required, useFocusInvalid } from "../forms.ts";
import { AssigneeOptions, assigneeFields, useWorkspace } from "../workspace.tsx";

const TITLE_LIMIT = 500;
const DESCRIPTION_LIMIT = 100_000;
const SHOWN = ["title", "description", "assignee_id", "assignee_type", "priority", "project_id", "due_date"];

export function NewIssueDialog({ onClose, onCreated }: { onClose: () => void; onCreated: (issue: Issue) => void }) {
  const ws = useWorkspace();
  const form = useRef<HTMLFormElement>(null);
  const [error, setError] = useState<unknown>();
  useFocusInvalid(form, error);
  const [busy, setBusy] = useState(false);
  const [title, setTitle] = useState("");

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const values = new FormData(event.currentTarget);
    const description = String(values.get("description") ?? "");
    const invalid = checkForm([
      { field: "title", label: "Title", value: title, checks: [required, maxLength(TITLE_LIMIT)] },
      { field: "description", label: "Description", value: description, checks: [maxLength(DESCRIPTION_LIMIT)] },
    ]);
    if (invalid) {
      setError(invalid);
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      const project = String(values.get("project") ?? "");
      const due = String(values.get("due_date") ?? "");
      const issue = await api.post<Issue>(`workspaces/${ws.id}/issues/`, {
        title,
        ...(description && { description }),
        priority: String(values.get("priority") ?? "none"),
        ...assigneeFields(String(values.get("assignee") ?? "")),
        ...(project && { project_id: project }),
        ...(due && { due_date: due }),
      });
      const labels = values.getAll("labels").map(String);
      await Promise.all(labels.map((label) => api.post(`workspaces/${ws.id}/issues/${issue.id}/labels/${label}`)));
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
      <form ref={form} onSubmit={submit} noValidate>
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
          <Field label="Project" error={fieldError(error, "project_id")}>
            {(id, describedBy, invalid) => (
              <select id={id} name="project" aria-describedby={describedBy} aria-invalid={invalid}>
                <option value="">No project</option>
                {ws.projects
                  .filter((project) => !isArchived(project))
                  .map((project) => (
                    <option key={project.id} value={project.id}>
                      {project.title}
                    </option>
                  ))}
              </select>
            )}
          </Field>
          <Field label="Due date" error={fieldError(error, "due_date")}>
            {(id, describedBy, invalid) => (
              <input id={id} name="due_date" type="date" aria-describedby={describedBy} aria-invalid={invalid} />
            )}
          </Field>
        </div>
        {ws.labels.length > 0 && (
          <fieldset className="labels">
            <legend>Labels</legend>
            {ws.labels.map((label) => (
              <label key={label.id} className="check">
                <input type="checkbox" name="labels" value={label.id} />{" "}
                <span className="dot" style={{ background: label.color }} aria-hidden="true" />
                {label.name}
              </label>
            ))}
          </fieldset>
        )}
        <ErrorLine error={formError(error, SHOWN)} />
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
