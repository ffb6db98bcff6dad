// The issue's fields: status, priority, assignee (members and agents), project and labels, each saved on change.
import { useId } from "react";
import { api } from "../api.ts";
import { type Issue, type Label, PRIORITIES, STATUSES } from "../api-types.ts";
import { useResource } from "../use-resource.ts";
import { AssigneeOptions, assigneeFields, useWorkspace } from "../workspace.tsx";

export function IssueFields(props: {
  issue: Issue;
  update: (changes: Partial<Issue>) => Promise<void>;
  revision: number;
}) {
  const { issue, update } = props;
  const ws = useWorkspace();
  const ids = { status: useId(), priority: useId(), assignee: useId(), project: useId() };
  const labels = useResource(
    () => api.get<Label[]>(`workspaces/${ws.id}/issues/${issue.id}/labels`),
    [ws.id, issue.id, props.revision],
  );
  const linked = new Set((labels.data ?? []).map((label) => label.id));

  const toggle = async (label: Label, on: boolean) => {
    labels.set((list) => (on ? [...list, label] : list.filter((each) => each.id !== label.id)));
    const path = `workspaces/${ws.id}/issues/${issue.id}/labels/${label.id}`;
    await (on ? api.post(path) : api.delete(path)).finally(labels.reload);
  };

  return (
    <div className="fields">
      <label htmlFor={ids.status}>Status</label>
      <select
        id={ids.status}
        value={issue.status}
        onChange={(event) => update({ status: event.target.value as Issue["status"] })}
      >
        {STATUSES.map(([value, title]) => (
          <option key={value} value={value}>
            {title}
          </option>
        ))}
      </select>
      <label htmlFor={ids.priority}>Priority</label>
      <select
        id={ids.priority}
        value={issue.priority}
        onChange={(event) => update({ priority: event.target.value as Issue["priority"] })}
      >
        {PRIORITIES.map(([priority, title]) => (
          <option key={priority} value={priority}>
            {title}
          </option>
        ))}
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
        {ws.projects.map((project) => (
          <option key={project.id} value={project.id}>
            {project.title}
          </option>
        ))}
      </select>
      <fieldset className="labels">
        <legend>Labels</legend>
        {ws.labels.length === 0 && <p className="muted">No labels in this workspace.</p>}
        {ws.labels.map((label) => (
          <label key={label.id} className="check">
            <input type="checkbox" checked={linked.has(label.id)} onChange={(e) => toggle(label, e.target.checked)} />{" "}
            {label.name}
          </label>
        ))}
      </fieldset>
    </div>
  );
}
