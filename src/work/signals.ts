// How the processes sharing a database hear about work: claimable tasks, a cancelled running task, new events of a
// run. On PostgreSQL a NOTIFY, sent inside the change's transaction and so delivered only once it commits, reaches a
// listening client in every process (this one included). On SQLite (one process) the hint stays in the process: the
// database runs one statement at a time, so whatever the hint starts reads after the change committed.
// A hint only says "look": the truth is always read from the tables.
import { EventEmitter } from "node:events";
import { sql } from "kysely";
import pg from "pg";
import { type Db, isPostgres } from "../db/index.ts";

export type WorkSignal =
  /** Tasks may have become claimable (queued, retried, approvals decided). */
  | { kind: "tasks" }
  /** This task was cancelled: whichever process runs it stops. */
  | { kind: "cancel"; taskId: string }
  /** This run has stored new events. */
  | { kind: "run"; runId: string };

export type SignalListener = (signal: WorkSignal) => void;

const CHANNEL = "agent_work";
const local = new EventEmitter().setMaxListeners(0);

function encode(signal: WorkSignal): string {
  if (signal.kind === "tasks") return "tasks";
  return signal.kind === "cancel" ? `cancel:${signal.taskId}` : `run:${signal.runId}`;
}

function decode(payload: string | undefined): WorkSignal | undefined {
  if (payload === "tasks") return { kind: "tasks" };
  if (payload?.startsWith("cancel:")) return { kind: "cancel", taskId: payload.slice(7) };
  if (payload?.startsWith("run:")) return { kind: "run", runId: payload.slice(4) };
  return undefined;
}

/** Announces `signal` to every process; inside a transaction it goes out when (and only if) that commits. */
export async function announce(db: Db, signal: WorkSignal): Promise<void> {
  if (isPostgres(db)) {
    await sql`select pg_notify(${CHANNEL}, ${encode(signal)})`.execute(db);
  } else {
    queueMicrotask(() => local.emit("signal", signal));
  }
}

export interface WorkSignals {
  /** Resolves once this process listens (PostgreSQL: the LISTEN connection is up, or its first try failed). */
  readonly ready: Promise<void>;
  /** Calls `listener` for every signal; returns the function that stops it. */
  on(listener: SignalListener): () => void;
  /** Calls `listener` when signals may have been missed (the listening connection came back). */
  onResync(listener: () => void): void;
  close(): Promise<void>;
}

export function openWorkSignals(db: Db, databaseUrl: string, log: SignalLog): WorkSignals {
  return isPostgres(db) ? new PostgresSignals(databaseUrl, log) : new LocalSignals();
}

export interface SignalLog {
  warn(object: object, message: string): void;
}

class LocalSignals implements WorkSignals {
  readonly ready = Promise.resolve();
  private readonly stops = new Set<() => void>();

  on(listener: SignalListener): () => void {
    local.on("signal", listener);
    const stop = () => {
      local.off("signal", listener);
      this.stops.delete(stop);
    };
    this.stops.add(stop);
    return stop;
  }

  onResync(): void {}

  async close(): Promise<void> {
    for (const stop of [...this.stops]) stop();
  }
}

const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 5_000;

/** One dedicated LISTEN connection per process, reconnecting with backoff. */
class PostgresSignals implements WorkSignals {
  private readonly listeners = new Set<SignalListener>();
  private readonly resyncListeners: Array<() => void> = [];
  private client: pg.Client | undefined;
  private closed = false;
  private reconnectDelayMs = RECONNECT_MIN_MS;
  private reconnectTimer: NodeJS.Timeout | undefined;
  readonly ready: Promise<void>;

  constructor(
    private readonly databaseUrl: string,
    private readonly log: SignalLog,
  ) {
    this.ready = this.connect(false);
  }

  on(listener: SignalListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onResync(listener: () => void): void {
    this.resyncListeners.push(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    await this.ready;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  private async connect(isReconnect: boolean): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl });
    client.on("notification", (message) => {
      const signal = decode(message.payload);
      if (signal) for (const listener of this.listeners) listener(signal);
    });
    client.on("error", () => this.lost(client));
    client.on("end", () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      this.log.warn(
        { message: error instanceof Error ? error.message : String(error) },
        "work listener: no connection",
      );
      this.lost(client);
      return;
    }
    if (this.closed) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
    this.reconnectDelayMs = RECONNECT_MIN_MS;
    if (isReconnect) for (const listener of this.resyncListeners) listener();
  }

  private lost(client: pg.Client): void {
    if (this.client !== undefined && this.client !== client) return;
    this.client = undefined;
    client.removeAllListeners("end");
    client.end().catch(() => {});
    if (this.closed || this.reconnectTimer) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      void this.connect(true);
    }, this.reconnectDelayMs);
    this.reconnectDelayMs = Math.min(this.reconnectDelayMs * 2, RECONNECT_MAX_MS);
  }
}
