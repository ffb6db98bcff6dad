// The issue's activity in words, with names, never ids: "Ada moved it to Done", "Reviewer was assigned",
// "added label bug". Names the API gives are used as they are; ids are looked up in the workspace's lists.
import type { Activity, Issue } from "../api-types.ts";
import { priorityTitle, statusTitle } from "../api-types.ts";
import { actorName, type WorkspaceData } from "../workspace.tsx";
import { DateOnly, Time } from "./Time.tsx";

type Change = { from?: unknown; to?: unknown; from_name?: unknown; to_name?: unknown };

const text = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);

/** Whatever an id names in this workspace: a member, an agent, a project, a label or an issue. */
function nameOf(id: unknown, ws: WorkspaceData, issues: Map<string, Issue>): string | undefined {
  if (typeof id !== "string") return undefined;
  const issue = issues.get(id);
  return (
    ws.members.find((member) => member.user_id === id)?.user.name ??
    ws.agents.find((agent) => agent.id === id)?.name ??
    ws.projects.find((project) => project.id === id)?.title ??
    ws.labels.find((label) => label.id === id)?.name ??
    (issue ? `${issue.identifier} ${issue.title}` : undefined)
  );
}

function describeChange(field: string, change: Change, ws: WorkspaceData, issues: Map<string, Issue>) {
  const to = text(change.to_name) ?? nameOf(change.to, ws, issues);
  const from = text(change.from_name) ?? nameOf(change.from, ws, issues);
  switch (field) {
    case "status":
      return `moved to ${statusTitle(change.to as Issue["status"]) ?? String(change.to)}`;
    case "priority":
      return change.to === "none"
        ? "removed the priority"
        : `set the priority to ${priorityTitle(change.to as Issue["priority"]) ?? String(change.to)}`;
    case "title":
      return `renamed it to “${String(change.to)}”`;
    case "description":
      return change.to ? "edited the description" : "removed the description";
    case "assignee_id":
      if (!change.to) return from ? `unassigned ${from}` : "removed the assignee";
      return `assigned ${to ?? "someone no longer here"}`;
    case "assignee_type":
      return undefined;
    case "project_id":
      return change.to ? `put it in the project ${to ?? "(deleted)"}` : "took it out of its project";
    case "parent_issue_id":
      return change.to ? `made it a sub-issue of ${to ?? "another issue"}` : "removed its parent issue";
    case "due_date":
      return change.to ? "set the due date to " : "removed the due date";
    case "acceptance_criteria":
      return "edited the acceptance criteria";
    case "position":
      return "reordered it";
    default:
      return `changed ${field.replaceAll("_", " ")}`;
  }
}

export function ActivityLine({
  entry,
  ws,
  issues,
}: {
  entry: Activity;
  ws: WorkspaceData;
  issues: Map<string, Issue>;
}) {
  const details = entry.details as Record<string, unknown>;
  const who = actorName(ws, entry.actor_type, entry.actor_id);
  let what: React.ReactNode;
  switch (entry.action) {
    case "issue.created":
      what = "created the issue";
      break;
    case "issue.updated": {
      const changes = (details.changes ?? {}) as Record<string, Change>;
      const parts = Object.entries(changes).flatMap(([field, change]) => {
        const said = describeChange(field, change, ws, issues);
        if (!said) return [];
        if (field === "due_date" && change.to)
          return [
            <span key={field}>
              {said}
              <DateOnly day={String(change.to)} />
            </span>,
          ];
        return [<span key={field}>{said}</span>];
      });
      what = parts.length ? parts.flatMap((part, index) => (index === 0 ? [part] : [", ", part])) : "edited the issue";
      break;
    }
    case "label.linked":
      what = `added label ${text(details.name) ?? nameOf(entry.entity_id, ws, issues) ?? ""}`;
      break;
    case "label.unlinked":
      what = `removed label ${text(details.name) ?? nameOf(entry.entity_id, ws, issues) ?? ""}`;
      break;
    case "comment.created":
      what = "commented";
      break;
    case "comment.updated":
      what = "edited a comment";
      break;
    case "comment.deleted":
      what = "deleted a comment";
      break;
    case "dependency.created":
    case "dependency.deleted": {
      const other = text(details.depends_on) ?? nameOf(details.depends_on_issue_id, ws, issues) ?? "another issue";
      const kind = String(details.type ?? "").replaceAll("_", " ");
      what =
        entry.action === "dependency.created"
          ? `added a dependency: ${kind} ${other}`
          : `removed the dependency: ${kind} ${other}`;
      break;
    }
    case "task.cancelled":
      what = `cancelled the task of ${nameOf(details.agent_id, ws, issues) ?? "an agent"}`;
      break;
    default:
      what = entry.action.replaceAll(".", " ").replaceAll("_", " ");
  }
  return (
    <>
      <span className="actor">{who}</span> {what} <Time iso={entry.created_at} className="muted" />
    </>
  );
}
