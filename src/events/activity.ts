// Every mutation writes one activity row, inside the same transaction as the change it describes, and the same entry
// as an event in the workspace's outbox (stream, webhooks): no caller can write one without the other.

import type { Insertable, Updateable } from "kysely";
import type { Db } from "../db/index.ts";
import type { Database } from "../db/schema.ts";
import { appendActivity } from "./append.ts";
import type { EventActor } from "./outbox.ts";

interface ActivityEntry {
  workspaceId: string;
  /** e.g. "issue", "comment", "project", "agent", "member", "label", "dependency", "workspace", "api_key" */
  entityType: string;
  entityId: string | null;
  /** The issue this concerns, so it shows in the issue's own activity. */
  issueId?: string | null;
  actor: EventActor;
  /** `<entity>.<verb>`, e.g. "issue.created", "issue.updated", "label.linked". */
  action: string;
  details?: Record<string, unknown>;
}

/** Records the entry, and its event in the outbox, when the transaction commits (see appendEvent). */
export function recordActivity(db: Db, entry: ActivityEntry): Promise<void> {
  return appendActivity(db, {
    workspaceId: entry.workspaceId,
    type: entry.action,
    entityType: entry.entityType,
    entityId: entry.entityId,
    issueId: entry.issueId ?? null,
    actor: entry.actor,
    data: entry.details ?? {},
  });
}

/** An entry about one row, whose id comes from the write that records it; `action` defaults to its verb. */
type RowEntry = Omit<ActivityEntry, "entityId" | "action"> & { action?: string };

/** Tables whose rows a mutation creates, changes or deletes with its activity entry, named by their `id`. */
type RecordedTable =
  | "projects"
  | "comments"
  | "labels"
  | "issue_dependencies"
  | "agents"
  | "api_keys"
  | "webhooks"
  | "runner_tokens"
  | "autopilots"
  | "skills"
  | "issues"
  | "members";

/** Inserts the row and records it (`<entity>.created` unless `action` names another). */
export async function insertCreated<T extends RecordedTable>(
  db: Db,
  table: T,
  row: Insertable<Database[T]> & { id: string },
  entry: RowEntry,
): Promise<void> {
  await db
    .insertInto(table as RecordedTable)
    .values(row as never)
    .execute();
  await recordActivity(db, { ...entry, entityId: row.id, action: entry.action ?? `${entry.entityType}.created` });
}

/** Sets `columns` on the row and records the change (`<entity>.updated` unless `action` names another). */
export async function updateRecorded<T extends RecordedTable>(
  db: Db,
  table: T,
  id: string,
  columns: Updateable<Database[T]>,
  entry: RowEntry,
): Promise<void> {
  await db
    .updateTable(table as RecordedTable)
    .set(columns as never)
    .where("id", "=", id)
    .execute();
  await recordActivity(db, { ...entry, entityId: id, action: entry.action ?? `${entry.entityType}.updated` });
}

/** Deletes the row and records it (`<entity>.deleted` unless `action` names another). */
export async function deleteRecorded(db: Db, table: RecordedTable, id: string, entry: RowEntry): Promise<void> {
  await db.deleteFrom(table).where("id", "=", id).execute();
  await recordActivity(db, { ...entry, entityId: id, action: entry.action ?? `${entry.entityType}.deleted` });
}

/** `{field: {from, to}}` for the fields whose value changed; empty when nothing did. */
export function diffFields<T extends object>(
  before: T,
  after: Partial<T>,
): Record<string, { from: unknown; to: unknown }> {
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const key of Object.keys(after) as (keyof T)[]) {
    const from = before[key];
    const to = after[key];
    if (to !== undefined && JSON.stringify(from) !== JSON.stringify(to)) changes[String(key)] = { from, to };
  }
  return changes;
}
