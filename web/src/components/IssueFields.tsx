// The issue's fields: status, priority, assignee (members and agents), project, due date and labels, each saved on
// change and shown at once.
import { useId, useState } from "react";
import { api } from "../api.ts";
import { type Issue, isArchived, type Label, PRIORITIES, STATUSES } from "../api-types.ts";
import { ErrorLine, Options } from "../components.tsx";
import { AssigneeOptions, assigneeFields, useWorkspace } from "../workspace.tsx";

export function IssueFields(props: {
  issue: Issue;
  update: (changes: Partial<Issue>) => Promise<void>;
  setIssue: (change: (issue: Issue) => Issue) => void;
  reload: () => void;
}) {
  const { issue, update } = props;
  const ws = useWorkspace();
  const ids = { status: useId(), priority: useId(), assignee: useId(), project: useId(), due: useId() };
  const [error, setError] = useState<unknown>();
  const linked = new Set(issue.label_ids);
  const projects = ws.projects.filter((project) => !isArchived(project) || project.id === issue.project_id);

  const toggle = async (label: Label, on: boolean) => {
    setError(undefined);
    props.setIssue((current) => ({
      ...current,
      label_ids: on ? [...current.label_ids, label.id] : current.label_ids.filter((id) => id !== label.id),
    }));
    const path = `workspaces/${ws.id}/issues/${issue.id}/labels/${label.id}`;
    await (on ? api.post(path) : api.delete(path)).catch(setError);
    props.reload();
  };

  return (
    <div className="fields">
      <label htmlFor={ids.status}>Status</label>
      <select
        id={ids.status}
        value={issue.status}
        onChange={(event) => update({ status: event.target.value as Issue["status"] })}
      >
        <Options of={STATUSES} />
      </select>
      <label htmlFor={ids.priority}>Priority</label>
      <select
        id={ids.priority}
        value={issue.priority}
        onChange={(event) => update({ priority: event.target.value as Issue["priority"] })}
      >
        <Options of={PRIORITIES} />
      </select>
      <label htmlFor={ids.assignee}>Assignee</label>
      <select
        id={ids.assignee}
        value={issue.assignee_id ? `${issue.assignee_type}:${issue.assignee_id}` : ""}
        onChange={(event) => update(assigneeFields(event.target.value) as Partial<Issue>)}
      >
        <AssigneeOptions data={ws} />
      </select>
      <label htmlFor={ids.project}>Project</label>
      <select
        id={ids.project}
        value={issue.project_id ?? ""}
        onChange={(event) => update({ project_id: event.target.value || null })}
      >
        <option value="">No project</option>
        {projects.map((project) => (
          <option key={project.id} value={project.id}>
            {project.title}
            {isArchived(project) ? " (archived)" : ""}
          </option>
        ))}
      </select>
      <label htmlFor={ids.due}>Due date</label>
      <input
        id={ids.due}
        type="date"
        value={issue.due_date?.slice(0, 10) ?? ""}
        onChange={(event) => update({ due_date: event.target.value || null })}
      />
      <fieldset className="labels">
        <legend>Labels</legend>
        {ws.labels.length === 0 && <p className="muted">No labels in this workspace.</p>}
        {ws.labels.map((label) => (
          <label key={label.id} className="check">
            <input type="checkbox" checked={linked.has(label.id)} onChange={(e) => toggle(label, e.target.checked)} />{" "}
            <span className="dot" style={{ background: label.color }} aria-hidden="true" />
            {label.name}
          </label>
        ))}
      </fieldset>
      <ErrorLine error={error} />
    </div>
  );
}
