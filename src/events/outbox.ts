// The outbox: every change writes its event in its own transaction, numbered per workspace without gaps.
// Readers (the stream, webhooks) only ever read committed rows in `seq` order; a notification just says "look".
import { PostgresAdapter, sql } from "kysely";
import type { Db } from "../db/index.ts";
import type { EventsTable } from "../db/schema.ts";
import { fromJson, newId, now, toJson } from "../db/values.ts";
import { signalLocally } from "./local-signal.ts";
import type { EventType } from "./types.ts";

/** The PostgreSQL channel every server process listens on; the payload is `<workspace id>:<seq>`. */
export const EVENTS_CHANNEL = "workspace_events";

/** An event as the API, the stream and webhooks show it. */
export interface WorkspaceEvent {
  id: string;
  seq: number;
  workspace_id: string;
  type: string;
  entity_type: string;
  entity_id: string | null;
  issue_id: string | null;
  /** `member` or `agent` for a person's or an agent's change, `system` for the platform's own (a worker, a sweep). */
  actor_type: string;
  actor_id: string | null;
  data: Record<string, unknown>;
  created_at: string;
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
  actor: { type: "member" | "agent"; id: string } | null;
  /** What a listener needs to act without a second request; JSON-serialisable, never a secret. */
  data?: Record<string, unknown>;
}

/**
 * Appends one event to the workspace's outbox inside `trx`, the transaction of the change it describes, and returns
 * it. The event becomes visible (stream, webhooks) when `trx` commits, and never if it rolls back.
 *
 * Call it after the change's other writes: it takes the workspace's event counter lock, held until commit, so
 * events of one workspace commit one at a time in `seq` order (a reader that sees `seq` N has seen every seq below).
 * Taken last, that lock is never held while waiting for another one, so it cannot deadlock.
 * Passed the root database instead of a transaction, it opens one of its own.
 */
export async function appendEvent(trx: Db, input: NewEvent): Promise<WorkspaceEvent> {
  if (!trx.isTransaction) return trx.transaction().execute((own) => appendEvent(own, input));
  const row: Omit<EventsTable, "seq" | "created_at"> = {
    id: newId(),
    workspace_id: input.workspaceId,
    type: input.type,
    entity_type: input.entityType,
    entity_id: input.entityId,
    issue_id: input.issueId ?? null,
    actor_type: input.actor?.type ?? "system",
    actor_id: input.actor?.id ?? null,
    data: toJson(input.data ?? {}),
  };
  if (isPostgres(trx)) return toEvent({ ...row, ...(await appendOnPostgres(trx, row)) });
  const counter = await trx
    .insertInto("event_counters")
    .values({ workspace_id: row.workspace_id, last_seq: 1 })
    .onConflict((conflict) =>
      conflict.column("workspace_id").doUpdateSet((eb) => ({ last_seq: eb("event_counters.last_seq", "+", 1) })),
    )
    .returning("last_seq")
    .executeTakeFirstOrThrow();
  const event: EventsTable = { ...row, seq: Number(counter.last_seq), created_at: now() };
  await trx.insertInto("events").values(event).execute();
  signalLocally(event.workspace_id, event.seq);
  return toEvent(event);
}

/**
 * The counter bump, the insert and the NOTIFY (delivered to every listening process at commit, dropped on rollback)
 * in one statement, so the counter's lock is held for one round trip and the commit. `created_at` is taken once the
 * lock is held, so it never runs backwards along `seq`.
 */
async function appendOnPostgres(
  trx: Db,
  row: Omit<EventsTable, "seq" | "created_at">,
): Promise<Pick<EventsTable, "seq" | "created_at">> {
  const { rows } = await sql<Pick<EventsTable, "seq" | "created_at">>`
    with counter as (
      insert into event_counters as c (workspace_id, last_seq) values (${row.workspace_id}::text, 1)
      on conflict (workspace_id) do update set last_seq = c.last_seq + 1
      returning last_seq
    ), appended as (
      insert into events (id, seq, workspace_id, type, entity_type, entity_id, issue_id, actor_type, actor_id, data,
        created_at)
      select ${row.id}::text, last_seq, ${row.workspace_id}::text, ${row.type}::text, ${row.entity_type}::text,
        ${row.entity_id}::text, ${row.issue_id}::text, ${row.actor_type}::text, ${row.actor_id}::text, ${row.data}::text,
        to_char(clock_timestamp() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')
      from counter
      returning *
    ), notice as (
      select seq, created_at, workspace_id || ':' || seq as hint,
        json_build_array(id, type, entity_type, entity_id, issue_id, actor_type, actor_id, data, created_at)::text as event
      from appended
    )
    -- The event itself rides along when it fits a NOTIFY (8000 bytes): listeners then need not read it back.
    select seq, created_at,
      pg_notify(${EVENTS_CHANNEL}::text, case when octet_length(event) < ${NOTIFY_EVENT_BYTES} then hint || ':' || event else hint end)
    from notice
  `.execute(trx);
  const appended = rows[0];
  if (!appended) throw new Error("The event was not appended");
  return { seq: Number(appended.seq), created_at: appended.created_at };
}

const isPostgres = (db: Db) => db.getExecutor().adapter instanceof PostgresAdapter;

/** Below PostgreSQL's 8000-byte NOTIFY payload, with room for the workspace id and seq in front. */
const NOTIFY_EVENT_BYTES = 7800;

/**
 * The hint a NOTIFY carries: `workspace:seq`, then `:` and the event (a JSON array of its other columns, in the
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
    const row: EventsTable = {
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

export function toEvent(row: EventsTable): WorkspaceEvent {
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

export interface EventQuery {
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
