// The New issue dialog: Title, Description, Assignee (members and agents), Priority, Project, Labels, Due date; every
// invalid field said at once, in words, next to it.
import { useState } from "react";
import { api } from "../api.ts";
import { type Issue, isArchived, PRIORITIES } from "../api-types.ts";
import {
  Dialog,
  ErrorLine,
  Field,
  FormActions,
  fieldError,
  formError,
  InputField,
  Options,
  TextAreaField,
} from "../components.tsx";
import { maxLength, required, text, useForm } from "../forms.ts";
import { AssigneeOptions, assigneeFields, useWorkspace } from "../workspace.tsx";

const TITLE_LIMIT = 500;
const DESCRIPTION_LIMIT = 100_000;
const SHOWN = ["title", "description", "assignee_id", "assignee_type", "priority", "project_id", "due_date"];

export function NewIssueDialog({ onClose, onCreated }: { onClose: () => void; onCreated: (issue: Issue) => void }) {
  const ws = useWorkspace();
  const [title, setTitle] = useState("");
  const form = useForm({
    check: (values) => [
      { field: "title", label: "Title", value: title, checks: [required, maxLength(TITLE_LIMIT)] },
      {
        field: "description",
        label: "Description",
        value: text(values, "description"),
        checks: [maxLength(DESCRIPTION_LIMIT)],
      },
    ],
    send: async (values) => {
      const description = text(values, "description");
      const project = text(values, "project");
      const due = text(values, "due_date");
      const issue = await api.post<Issue>(`workspaces/${ws.id}/issues/`, {
        title,
        ...(description && { description }),
        priority: String(values.get("priority") ?? "none"),
        ...assigneeFields(text(values, "assignee")),
        ...(project && { project_id: project }),
        ...(due && { due_date: due }),
      });
      const labels = values.getAll("labels").map(String);
      await Promise.all(labels.map((label) => api.post(`workspaces/${ws.id}/issues/${issue.id}/labels/${label}`)));
      onCreated(issue);
      onClose();
    },
  });
  const error = form.error;

  const over = title.length > TITLE_LIMIT;
  return (
    <Dialog title="New issue" onClose={onClose}>
      <form {...form.props}>
        <Field
          label="Title"
          error={fieldError(error, "title")}
          hint={over ? `${title.length} of ${TITLE_LIMIT} characters: too long` : undefined}
        >
          {(control) => (
            <input
              {...control}
              name="title"
              value={title}
              onChange={(event) => setTitle(event.target.value)}
              aria-invalid={control["aria-invalid"] || over}
              autoFocus
            />
          )}
        </Field>
        <TextAreaField
          label="Description"
          error={fieldError(error, "description")}
          hint="Markdown"
          name="description"
          rows={5}
        />
        <div className="row">
          <Field label="Assignee" error={fieldError(error, "assignee_id", "assignee_type")}>
            {(control) => (
              <select {...control} name="assignee">
                <AssigneeOptions data={ws} />
              </select>
            )}
          </Field>
          <Field label="Priority" error={fieldError(error, "priority")}>
            {({ id }) => (
              <select id={id} name="priority" defaultValue="none">
                <Options of={PRIORITIES} />
              </select>
            )}
          </Field>
          <Field label="Project" error={fieldError(error, "project_id")}>
            {(control) => (
              <select {...control} name="project">
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
          <InputField label="Due date" error={fieldError(error, "due_date")} name="due_date" type="date" />
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
        <FormActions submit="Create issue" onCancel={onClose} busy={form.busy} />
      </form>
    </Dialog>
  );
}
