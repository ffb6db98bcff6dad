// A run's AG-UI events as stored: numbered from 1 in the order they happened, each kept as the event's JSON in the
// official dialect (UPPER_SNAKE `type`, camelCase fields), exactly what `runs/{id}/events` sends.
import { sql } from "kysely";
import { type Db, isPostgres } from "../db/index.ts";
import { now, toJson } from "../db/values.ts";
import { announce, notification } from "./signals.ts";

export interface RunEvent {
  type: string;
  [field: string]: unknown;
}

interface StoredRunEvent {
  seq: number;
  type: string;
  /** The event's JSON text. */
  data: string;
}

/** The events after which a run's stream ends. */
export const TERMINAL_EVENT_TYPES = new Set(["RUN_FINISHED", "RUN_ERROR"]);

export async function lastEventSeq(db: Db, runId: string): Promise<number> {
  const row = await db
    .selectFrom("run_events")
    .select((eb) => eb.fn.max("seq").as("seq"))
    .where("run_id", "=", runId)
    .executeTakeFirst();
  return Number(row?.seq ?? 0);
}

/**
 * Stores events of a run in progress, as it streams. On PostgreSQL without waiting for the disk: the events are a log
 * to watch, a crash may lose the last few of a run that the crash ends anyway, and every later durable commit (the
 * run's own end, its task's state) makes them durable too, WAL being written in order.
 */
export function streamRunEvents(db: Db, runId: string, afterSeq: number, events: RunEvent[]): Promise<number> {
  return store(db, runId, afterSeq, events, true);
}

/** Stores `events` after event number `afterSeq`; the caller is the run's only writer at the time. */
export function storeRunEvents(db: Db, runId: string, afterSeq: number, events: RunEvent[]): Promise<number> {
  return store(db, runId, afterSeq, events, false);
}

async function store(db: Db, runId: string, afterSeq: number, events: RunEvent[], unhurried: boolean): Promise<number> {
  if (events.length === 0) return afterSeq;
  if (isPostgres(db)) {
    // One statement, so one round trip; the NOTIFY goes out at commit, once the rows are in. Unhurried, the statement
    // is its own transaction and the setting holds for its commit.
    const setting = unhurried ? sql`select set_config('synchronous_commit', 'off', true)` : sql`select 1`;
    await sql`
      with setting as (${setting}), stored as (${postgresInsert(runId, afterSeq, events)})
      select ${notification({ kind: "run", runId })} from setting`.execute(db);
    return afterSeq + events.length;
  }
  let seq = afterSeq;
  const at = now();
  await db
    .insertInto("run_events")
    .values(
      events.map((event) => ({
        run_id: runId,
        seq: ++seq,
        type: event.type,
        data: toJson(event),
        created_at: at,
      })),
    )
    .execute();
  await announce(db, { kind: "run", runId });
  return afterSeq + events.length;
}

/** PostgreSQL: the events as arrays, so the statement's text is the same whatever their number (prepared once). */
function postgresInsert(runId: string, afterSeq: number, events: RunEvent[]) {
  const seqs = events.map((_, index) => afterSeq + index + 1);
  return sql`
    insert into run_events (run_id, seq, type, data, created_at)
    select ${runId}, event.seq, event.type, event.data, ${now()}
    from unnest(${seqs}::integer[], ${events.map((event) => event.type)}::text[],
      ${events.map((event) => JSON.stringify(event))}::text[]) as event(seq, type, data)`;
}

/**
 * Appends events to a run no process is writing (one waiting for approval, or whose process died), numbered after
 * the last stored one. Inside a transaction that holds the run's task row, so two such writers take turns.
 */
export async function appendRunEvents(trx: Db, runId: string, events: RunEvent[]): Promise<void> {
  await storeRunEvents(trx, runId, await lastEventSeq(trx, runId), events);
}

/**
 * Up to `limit` events after `afterSeq`, in order; undefined once the run is gone (deleted with its task, agent or
 * workspace: no last event will come).
 */
export async function readRunEvents(
  db: Db,
  runId: string,
  afterSeq: number,
  limit: number,
): Promise<StoredRunEvent[] | undefined> {
  const rows = await db
    .selectFrom("runs")
    .leftJoin("run_events", (join) =>
      join.onRef("run_events.run_id", "=", "runs.id").on("run_events.seq", ">", afterSeq),
    )
    .select(["run_events.seq", "run_events.type", "run_events.data"])
    .where("runs.id", "=", runId)
    .orderBy("run_events.seq")
    .limit(limit)
    .execute();
  if (rows.length === 0) return undefined;
  return rows.flatMap(({ seq, type, data }) =>
    seq === null || type === null || data === null ? [] : [{ seq: Number(seq), type, data }],
  );
}

/** The RUN_ERROR that ends a run cut short. */
export const runErrorEvent = (message: string, code: string): RunEvent => ({ type: "RUN_ERROR", message, code });
