// How the processes sharing a database wake each other: a signal is a payload sent on a named channel. On PostgreSQL
// it is a NOTIFY, sent inside the change's transaction and so delivered only once that commits, to a listening
// connection in every process (this one included; db/listener.ts keeps it, and says when it came back after a loss,
// when signals may have been missed). On SQLite (one process per file) it stays in the process, and a signal sent in a
// transaction goes out once that commits (db/commit-hooks.ts), never on rollback, as on PostgreSQL. A signal only
// ever says "look": the truth is read from the tables. Features give channels and payloads their meaning (events,
// work).
import { EventEmitter } from "node:events";
import { type RawBuilder, sql } from "kysely";
import { afterCommit } from "./commit-hooks.ts";
import { type Db, isPostgres } from "./index.ts";
import { type ListenerLog, PostgresListener } from "./listener.ts";

export type SignalListener = (payload: string) => void;

/** SQLite's signals, within the process: one event name per channel. */
const local = new EventEmitter().setMaxListeners(0);

/** Sends `payload` on `channel` to every process; inside a transaction it goes out when (and only if) that commits. */
export async function sendSignal(db: Db, channel: string, payload: string): Promise<void> {
  if (isPostgres(db)) await sql`select ${notification(channel, payload)}`.execute(db);
  else if (!afterCommit(db, () => signalLocally(channel, payload))) signalLocally(channel, payload);
}

/** PostgreSQL: the expression that sends the signal, to select inside a larger statement. */
export const notification = (channel: string, payload: string): RawBuilder<unknown> =>
  sql`pg_notify(${channel}::text, ${payload}::text)`;

/** SQLite: sends the signal within this process, once the current statement has returned. */
export function signalLocally(channel: string, payload: string): void {
  queueMicrotask(() => local.emit(channel, payload));
}

/** What one process hears on its channels. */
export interface Signals {
  /** Resolves once this process listens (PostgreSQL: the connection is up, or its first try failed). */
  readonly ready: Promise<void>;
  /** Calls `listener` with every payload sent on `channel` (one this process listens on); returns how to stop. */
  on(channel: string, listener: SignalListener): () => void;
  /** Calls `listener` when signals may have been missed (the listening connection came back): read all again. */
  onResync(listener: () => void): void;
  close(): Promise<void>;
}

/** This process's ears on `channels`: a LISTEN connection of its own on PostgreSQL, the process itself on SQLite. */
export function openSignals(
  dialect: "sqlite" | "postgres",
  databaseUrl: string,
  channels: string[],
  log: ListenerLog,
): Signals {
  return dialect === "postgres" ? new PostgresSignals(databaseUrl, channels, log) : new LocalSignals();
}

class LocalSignals implements Signals {
  readonly ready = Promise.resolve();
  private readonly stops = new Set<() => void>();

  on(channel: string, listener: SignalListener): () => void {
    local.on(channel, listener);
    const stop = () => {
      local.off(channel, listener);
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

class PostgresSignals implements Signals {
  private readonly listeners = new Map<string, Set<SignalListener>>();
  private readonly resyncListeners: Array<() => void> = [];
  private readonly listener: PostgresListener;
  readonly ready: Promise<void>;

  constructor(databaseUrl: string, channels: string[], log: ListenerLog) {
    for (const channel of channels) this.listeners.set(channel, new Set());
    this.listener = new PostgresListener(
      databaseUrl,
      channels,
      {
        notification: (channel, payload) => {
          for (const listener of this.listeners.get(channel) ?? []) listener(payload);
        },
        reconnected: () => {
          for (const listener of this.resyncListeners) listener();
        },
      },
      log,
    );
    this.ready = this.listener.ready;
  }

  on(channel: string, listener: SignalListener): () => void {
    const listeners = this.listeners.get(channel);
    if (!listeners) throw new Error(`Not listening on ${channel}`);
    listeners.add(listener);
    return () => listeners.delete(listener);
  }

  onResync(listener: () => void): void {
    this.resyncListeners.push(listener);
  }

  async close(): Promise<void> {
    await this.ready;
    await this.listener.close();
  }
}
