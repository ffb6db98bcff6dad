// The outbox: every change writes its event in its own transaction (append.ts), numbered per workspace without gaps.
// Readers (the stream, webhooks) only ever read committed rows in `seq` order; a notification just says "look".
import { type Selectable, sql } from "kysely";
import type { Db } from "../db/index.ts";
import type { EventsTable } from "../db/schema.ts";
import { fromJson } from "../db/values.ts";
import type { EventType } from "./types.ts";

/** The channel every server process listens on; the payload is `<workspace id>:<seq>[:<event>]` (parseEventNotice). */
export const EVENTS_CHANNEL = "workspace_events";

/** An event as the API, the stream and webhooks show it. */
export interface WorkspaceEvent extends Omit<Selectable<EventsTable>, "actor_type" | "data"> {
  /**
   * `member` or `agent` for a person's or an agent's change, `autopilot` for an autopilot's fire, `system` for the
   * platform's own (a worker, a sweep).
   */
  actor_type: string;
  data: Record<string, unknown>;
}

/** Who made a change: a member, an agent, or an autopilot firing (its issue is created in its creator's name). */
export interface EventActor {
  type: "member" | "agent" | "autopilot";
  id: string;
}

export interface NewEvent {
  workspaceId: string;
  /** `<entity>.<verb>`: an activity action, or e.g. `task.started`, `run.finished`, `approval.decided`. */
  type: EventType;
  /** e.g. "issue", "comment", "task", "run", "approval" */
  entityType: string;
  entityId: string | null;
  /** The issue this concerns, if any. */
  issueId?: string | null;
  /** Who made the change; null for the platform itself (actor_type `system`). */
  actor: EventActor | null;
  /** What a listener needs to act without a second request; JSON-serialisable, never a secret. */
  data?: Record<string, unknown>;
}

/**
 * The hint a signal carries: `workspace:seq`, then `:` and the event (a JSON array of its other columns, in the
 * table's order) when it fitted. Undefined for anything else.
 */
export function parseEventNotice(
  payload: string,
): { workspaceId: string; seq: number; event?: WorkspaceEvent } | undefined {
  const first = payload.indexOf(":");
  if (first < 0) return undefined;
  const second = payload.indexOf(":", first + 1);
  const workspaceId = payload.slice(0, first);
  const seq = Number(payload.slice(first + 1, second < 0 ? undefined : second));
  if (!Number.isInteger(seq)) return undefined;
  if (second < 0) return { workspaceId, seq };
  try {
    const [id, type, entity_type, entity_id, issue_id, actor_type, actor_id, data, created_at] = JSON.parse(
      payload.slice(second + 1),
    );
    const row: Selectable<EventsTable> = {
      id,
      seq,
      workspace_id: workspaceId,
      type,
      entity_type,
      entity_id,
      issue_id,
      actor_type,
      actor_id,
      data,
      created_at,
    };
    return { workspaceId, seq, event: toEvent(row) };
  } catch {
    return { workspaceId, seq };
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export function toEvent(row: Selectable<EventsTable>): WorkspaceEvent {
  const data = fromJson<unknown>(row.data, {});
  return { ...row, seq: Number(row.seq), data: isObject(data) ? data : {} };
}

/** The last seq handed out in the workspace (0 before its first event). */
export async function headSeq(db: Db, workspaceId: string): Promise<number> {
  const row = await db
    .selectFrom("event_counters")
    .select("last_seq")
    .where("workspace_id", "=", workspaceId)
    .executeTakeFirst();
  return Number(row?.last_seq ?? 0);
}

interface EventQuery {
  afterSeq: number;
  limit: number;
  offset?: number;
  /** Type filter (exact types and `entity.*`); empty = all. */
  types?: readonly string[];
}

/** Committed events after `afterSeq`, oldest first. */
export async function readEvents(db: Db, workspaceId: string, query: EventQuery): Promise<WorkspaceEvent[]> {
  let select = db
    .selectFrom("events")
    .selectAll()
    .where("workspace_id", "=", workspaceId)
    .where("seq", ">", query.afterSeq);
  const types = query.types ?? [];
  if (types.length > 0) {
    const exact = types.filter((type) => !type.endsWith(".*"));
    const prefixes = types.filter((type) => type.endsWith(".*")).map((type) => type.slice(0, -1));
    select = select.where((eb) =>
      eb.or([
        ...(exact.length > 0 ? [eb("type", "in", exact)] : []),
        // Patterns are `[a-z0-9_]+.*`: `_` is the only LIKE wildcard they can hold, so it is escaped.
        ...prefixes.map((prefix) => eb("type", "like", sql<string>`${`${prefix.replaceAll("_", "!_")}%`} escape '!'`)),
      ]),
    );
  }
  const rows = await select
    .orderBy("seq")
    .limit(query.limit)
    .offset(query.offset ?? 0)
    .execute();
  return rows.map(toEvent);
}
