// Every mutation writes one activity row, inside the same transaction as the change it describes, and the same entry
// as an event in the workspace's outbox (stream, webhooks): no caller can write one without the other.

import type { Actor } from "../api/access.ts";
import type { Db } from "../db/index.ts";
import { appendActivity } from "./append.ts";

interface ActivityEntry {
  workspaceId: string;
  /** e.g. "issue", "comment", "project", "agent", "member", "label", "dependency", "workspace", "api_key" */
  entityType: string;
  entityId: string | null;
  /** The issue this concerns, so it shows in the issue's own activity. */
  issueId?: string | null;
  actor: Actor;
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
