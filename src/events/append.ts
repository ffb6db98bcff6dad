// Writing to the outbox: every change appends its events (and its activity entries, which are events too) in its
// own transaction. They are written together at the transaction's end (db/commit-hooks.ts), in one statement on
// PostgreSQL: the workspace's event counter is a row lock held until commit, so taking it last, for one round trip,
// keeps writers of one workspace from queueing behind each other's whole transactions.
import { type Selectable, sql } from "kysely";
import { afterCommit, beforeCommit } from "../db/commit-hooks.ts";
import { type Db, isPostgres } from "../db/index.ts";
import { holdWorkspace } from "../db/lock-order.ts";
import type { EventsTable } from "../db/schema.ts";
import { signalLocally } from "../db/signals.ts";
import { newId, now, toJson } from "../db/values.ts";
import { EVENTS_CHANNEL, type NewEvent } from "./outbox.ts";

/** An event to write, and the id of its activity entry when it is one. */
interface PendingEvent {
  row: Omit<Selectable<EventsTable>, "seq" | "created_at">;
  activityId: string | null;
}

const pendingOf = new WeakMap<Db, PendingEvent[]>();

/** Below PostgreSQL's 8000-byte NOTIFY payload, with room for the workspace id and seq in front. */
const NOTIFY_EVENT_BYTES = 7800;

/**
 * Appends an event to the workspace's outbox inside `trx`, the transaction of the change it describes. It gets its
 * `seq` when `trx` commits and becomes visible then (stream, webhooks), never if `trx` rolls back. Events of one
 * workspace commit one at a time in `seq` order, so a reader that sees `seq` N has seen every seq below. Passed the
 * root database instead of a transaction, it opens one of its own.
 */
export function appendEvent(trx: Db, event: NewEvent): Promise<void> {
  return append(trx, event, null);
}

/** The same as appendEvent, and the event is also the change's entry in the activity log (`action` = its type). */
export function appendActivity(trx: Db, event: NewEvent): Promise<void> {
  return append(trx, event, newId());
}

async function append(trx: Db, event: NewEvent, activityId: string | null): Promise<void> {
  if (!trx.isTransaction) {
    // Its own transaction holds the workspace first (db/lock-order.ts): a deleted workspace has no outbox to write to.
    return trx.transaction().execute(async (own) => {
      if (await holdWorkspace(own, event.workspaceId)) await append(own, event, activityId);
    });
  }
  const pending: PendingEvent = { row: rowOf(event), activityId };
  const queued = pendingOf.get(trx);
  if (queued) {
    queued.push(pending);
    return;
  }
  const batch = [pending];
  if (beforeCommit(trx, () => write(trx, batch))) pendingOf.set(trx, batch);
  // A transaction without commit hooks (not opened through openDatabase's handle) writes at once.
  else await write(trx, batch);
}

function rowOf(input: NewEvent): PendingEvent["row"] {
  return {
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
}

async function write(trx: Db, batch: PendingEvent[]): Promise<void> {
  const byWorkspace = new Map<string, PendingEvent[]>();
  for (const pending of batch) {
    const events = byWorkspace.get(pending.row.workspace_id);
    if (events) events.push(pending);
    else byWorkspace.set(pending.row.workspace_id, [pending]);
  }
  // Counters of several workspaces are locked in one order, so two such transactions cannot deadlock.
  for (const [workspaceId, events] of [...byWorkspace].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (isPostgres(trx)) await writeOnPostgres(trx, workspaceId, events);
    else await writeOnSqlite(trx, workspaceId, events);
  }
}

async function writeOnSqlite(trx: Db, workspaceId: string, events: PendingEvent[]): Promise<void> {
  const counter = await trx
    .insertInto("event_counters")
    .values({ workspace_id: workspaceId, last_seq: events.length })
    .onConflict((conflict) =>
      conflict
        .column("workspace_id")
        .doUpdateSet((eb) => ({ last_seq: eb("event_counters.last_seq", "+", events.length) })),
    )
    .returning("last_seq")
    .executeTakeFirstOrThrow();
  const first = Number(counter.last_seq) - events.length + 1;
  // now() never repeats: entries of one transaction keep their order in the activity log, which sorts by time.
  const rows = events.map(({ row }, index) => ({ ...row, seq: first + index, created_at: now() }));
  await trx.insertInto("events").values(rows).execute();
  const entries = rows.flatMap((row, index) => {
    const activityId = events[index]!.activityId;
    return activityId === null ? [] : [activityRow(row, activityId, row.created_at)];
  });
  if (entries.length > 0) await trx.insertInto("activity").values(entries).execute();
  const hints = rows.map(hintOf);
  const send = () => {
    for (const hint of hints) signalLocally(EVENTS_CHANNEL, hint);
  };
  // Like PostgreSQL's NOTIFYs: heard once the change has committed, never if it rolls back.
  if (!afterCommit(trx, send)) send();
}

/** The hint PostgreSQL's NOTIFY carries (writeOnPostgres; outbox.ts reads it): `workspace:seq[:event]`. */
function hintOf(row: Selectable<EventsTable>): string {
  const hint = `${row.workspace_id}:${row.seq}`;
  const event = JSON.stringify([
    row.id,
    row.type,
    row.entity_type,
    row.entity_id,
    row.issue_id,
    row.actor_type,
    row.actor_id,
    row.data,
    row.created_at,
  ]);
  return Buffer.byteLength(event) < NOTIFY_EVENT_BYTES ? `${hint}:${event}` : hint;
}

const activityRow = (row: PendingEvent["row"], id: string, created_at: string) => ({
  id,
  workspace_id: row.workspace_id,
  entity_type: row.entity_type,
  entity_id: row.entity_id,
  issue_id: row.issue_id,
  actor_type: row.actor_type,
  actor_id: row.actor_id,
  action: row.type,
  details: row.data,
  created_at,
});

/**
 * The counter bump, the events, the activity entries and the NOTIFYs (delivered to every listening process at
 * commit, dropped on rollback) in one statement whose text does not depend on how many there are. `created_at` is
 * taken once the counter's lock is held, so it never runs backwards along `seq`, and rises within the batch too (the
 * activity log sorts by time). Each event rides along in its
 * NOTIFY when it fits (listeners then need not read it back).
 */
async function writeOnPostgres(trx: Db, workspaceId: string, events: PendingEvent[]): Promise<void> {
  const column = <K extends keyof PendingEvent["row"]>(key: K) => events.map(({ row }) => row[key]);
  await sql`
    with input as (
      select * from unnest(${column("id")}::text[], ${column("type")}::text[], ${column("entity_type")}::text[],
        ${column("entity_id")}::text[], ${column("issue_id")}::text[], ${column("actor_type")}::text[],
        ${column("actor_id")}::text[], ${column("data")}::text[], ${events.map((event) => event.activityId)}::text[])
        with ordinality as i(id, type, entity_type, entity_id, issue_id, actor_type, actor_id, data, activity_id, n)
    ), counter as (
      insert into event_counters as c (workspace_id, last_seq) values (${workspaceId}::text, ${events.length}::int)
      on conflict (workspace_id) do update set last_seq = c.last_seq + excluded.last_seq
      returning last_seq
    ), appended as (
      insert into events (id, seq, workspace_id, type, entity_type, entity_id, issue_id, actor_type, actor_id, data,
        created_at)
      select i.id, counter.last_seq - ${events.length}::int + i.n, ${workspaceId}::text, i.type, i.entity_type,
        i.entity_id, i.issue_id, i.actor_type, i.actor_id, i.data,
        to_char(clock_timestamp() at time zone 'UTC' + (i.n - 1) * interval '1 microsecond', 'YYYY-MM-DD"T"HH24:MI:SS.US')
      from input i, counter
      returning *
    ), logged as (
      insert into activity (id, workspace_id, entity_type, entity_id, issue_id, actor_type, actor_id, action, details,
        created_at)
      select i.activity_id, a.workspace_id, a.entity_type, a.entity_id, a.issue_id, a.actor_type, a.actor_id, a.type,
        a.data, a.created_at
      from input i join appended a on a.id = i.id
      where i.activity_id is not null
    ), notice as (
      select seq, workspace_id || ':' || seq as hint,
        json_build_array(id, type, entity_type, entity_id, issue_id, actor_type, actor_id, data, created_at)::text as event
      from appended
    )
    select pg_notify(${EVENTS_CHANNEL}::text,
      case when octet_length(event) < ${NOTIFY_EVENT_BYTES} then hint || ':' || event else hint end)
    from notice
    order by seq
  `.execute(trx);
}
