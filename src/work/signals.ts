// How the processes sharing a database hear about work: claimable tasks, a cancelled running task, new events of a
// run. On PostgreSQL a NOTIFY, sent inside the change's transaction and so delivered only once it commits, reaches a
// listening client in every process (this one included). On SQLite (one process) the hint stays in the process: the
// database runs one statement at a time, so whatever the hint starts reads after the change committed.
// A hint only says "look": the truth is always read from the tables.
import { EventEmitter } from "node:events";
import { sql } from "kysely";
import { type Db, isPostgres } from "../db/index.ts";
import { PostgresListener } from "../db/listener.ts";

type WorkSignal =
  /** Tasks may have become claimable (queued, retried, approvals decided). */
  | { kind: "tasks" }
  /** This task was cancelled: whichever process runs it stops. */
  | { kind: "cancel"; taskId: string }
  /** This run has stored new events. */
  | { kind: "run"; runId: string };

type SignalListener = (signal: WorkSignal) => void;

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
    await sql`select ${notification(signal)}`.execute(db);
  } else {
    queueMicrotask(() => local.emit("signal", signal));
  }
}

/** PostgreSQL: the expression that announces `signal`, to select inside a larger statement. */
export const notification = (signal: WorkSignal) => sql`pg_notify(${CHANNEL}, ${encode(signal)})`;

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

interface SignalLog {
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

/** The process's LISTEN connection (db/listener.ts), decoding work hints for its listeners. */
class PostgresSignals implements WorkSignals {
  private readonly listeners = new Set<SignalListener>();
  private readonly resyncListeners: Array<() => void> = [];
  private readonly listener: PostgresListener;
  readonly ready: Promise<void>;

  constructor(databaseUrl: string, log: SignalLog) {
    this.listener = new PostgresListener(
      databaseUrl,
      [CHANNEL],
      {
        notification: (_channel, payload) => {
          const signal = decode(payload);
          if (signal) for (const listener of this.listeners) listener(signal);
        },
        reconnected: () => {
          for (const listener of this.resyncListeners) listener();
        },
      },
      log,
    );
    this.ready = this.listener.ready;
  }

  on(listener: SignalListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onResync(listener: () => void): void {
    this.resyncListeners.push(listener);
  }

  async close(): Promise<void> {
    await this.ready;
    await this.listener.close();
  }
}
