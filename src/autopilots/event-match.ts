// Whether a workspace event fires an autopilot's event trigger: its type, its filter (read against the event's issue),
// and the loop guard — never on the autopilot's own changes, nor on its agent's work on an issue it created.
import type { Db } from "../db/index.ts";
import type { AutopilotsTable } from "../db/schema.ts";
import type { WorkspaceEvent } from "../events/outbox.ts";
import { matchesTypes } from "../events/types.ts";
import { type StoredTrigger, triggersOf } from "./rows.ts";

type EventTrigger = Extract<StoredTrigger, { kind: "event" }>;

export interface IssueFacts {
  status: string;
  priority: string;
  project_id: string | null;
  label_ids: string[];
}

/** What the filters of a batch of events need: the issues they concern, and which of them the autopilot created. */
export interface EventFacts {
  issues: Map<string, IssueFacts>;
  createdByAutopilot: Set<string>;
}

export async function factsFor(db: Db, autopilot: AutopilotsTable, events: WorkspaceEvent[]): Promise<EventFacts> {
  const autopilotId = autopilot.id;
  const facts: EventFacts = { issues: new Map(), createdByAutopilot: new Set() };
  // Without event triggers only its tasks' failures matter: most batches need no look at all.
  const hasEventTriggers = triggersOf(autopilot).some((trigger) => trigger.kind === "event");
  if (!hasEventTriggers && !events.some((event) => event.type === "task.failed")) return facts;
  const issueIds = [...new Set(events.flatMap((event) => (event.issue_id ? [event.issue_id] : [])))];
  if (issueIds.length === 0) return facts;
  const [issues, labels, created] = await Promise.all([
    db.selectFrom("issues").select(["id", "status", "priority", "project_id"]).where("id", "in", issueIds).execute(),
    db.selectFrom("issue_labels").select(["issue_id", "label_id"]).where("issue_id", "in", issueIds).execute(),
    db
      .selectFrom("autopilot_runs")
      .select("issue_id")
      .where("autopilot_id", "=", autopilotId)
      .where("issue_id", "in", issueIds)
      .execute(),
  ]);
  for (const issue of issues) facts.issues.set(issue.id, { ...issue, label_ids: [] });
  for (const link of labels) facts.issues.get(link.issue_id)?.label_ids.push(link.label_id);
  for (const run of created) if (run.issue_id) facts.createdByAutopilot.add(run.issue_id);
  return facts;
}

/** The index of the first event trigger the event fires, or undefined. */
export function firedTrigger(autopilot: AutopilotsTable, event: WorkspaceEvent, facts: EventFacts): number | undefined {
  if (isLoop(autopilot, event, facts)) return undefined;
  const triggers = triggersOf(autopilot);
  for (const [index, trigger] of triggers.entries()) {
    if (trigger.kind === "event" && matchesTypes(trigger.types, event.type) && passesFilter(trigger, event, facts)) {
      return index;
    }
  }
  return undefined;
}

function isLoop(autopilot: AutopilotsTable, event: WorkspaceEvent, facts: EventFacts): boolean {
  if (event.actor_type === "autopilot" && event.actor_id === autopilot.id) return true;
  return (
    event.actor_type === "agent" &&
    event.actor_id === autopilot.agent_id &&
    event.issue_id !== null &&
    facts.createdByAutopilot.has(event.issue_id)
  );
}

function statusChange(event: WorkspaceEvent): { from?: unknown; to?: unknown } | undefined {
  const changes = event.data.changes;
  if (typeof changes !== "object" || changes === null) return undefined;
  const status = (changes as Record<string, unknown>).status;
  return typeof status === "object" && status !== null ? (status as { from?: unknown; to?: unknown }) : undefined;
}

function passesFilter(trigger: EventTrigger, event: WorkspaceEvent, facts: EventFacts): boolean {
  const filter = trigger.filter ?? {};
  const change = statusChange(event);
  if (filter.from_status !== undefined && change?.from !== filter.from_status) return false;
  if (filter.to_status !== undefined && change?.to !== filter.to_status) return false;
  const needsIssue =
    filter.status !== undefined ||
    filter.priority !== undefined ||
    filter.project_id !== undefined ||
    filter.label_id !== undefined;
  if (!needsIssue) return true;
  const issue = event.issue_id ? facts.issues.get(event.issue_id) : undefined;
  if (!issue) return false;
  const status = typeof change?.to === "string" ? change.to : issue.status;
  if (filter.status !== undefined && status !== filter.status) return false;
  if (filter.priority !== undefined && issue.priority !== filter.priority) return false;
  if (filter.project_id !== undefined && issue.project_id !== filter.project_id) return false;
  if (filter.label_id !== undefined && !issue.label_ids.includes(filter.label_id)) return false;
  return true;
}

/** A task of one of its own issues failed: time to see whether it should pause. */
export const concernsItsFailures = (event: WorkspaceEvent, facts: EventFacts): boolean =>
  event.type === "task.failed" && event.issue_id !== null && facts.createdByAutopilot.has(event.issue_id);
