// What work signals mean (the mechanism is db/signals.ts): tasks may be claimable, a running task was cancelled, a
// run stored new events. A signal only says "look": the truth is always read from the tables.
import { type Db, isPostgres } from "../db/index.ts";
import type { ListenerLog } from "../db/listener.ts";
import { notification as notifyOn, openSignals, sendSignal } from "../db/signals.ts";

type WorkSignal =
  /**
   * Tasks may have become claimable (queued, retried, approvals decided). `runnersOnly`: only tasks of agents bound to
   * runtimes can be (a runner's task ended, a runtime came online), so the in-process worker need not look.
   */
  | { kind: "tasks"; runnersOnly?: boolean }
  /** This task was cancelled: whichever process runs it stops. */
  | { kind: "cancel"; taskId: string }
  /** This run has stored new events. */
  | { kind: "run"; runId: string };

type SignalListener = (signal: WorkSignal) => void;

const CHANNEL = "agent_work";

function encode(signal: WorkSignal): string {
  if (signal.kind === "tasks") return signal.runnersOnly ? "tasks:runners" : "tasks";
  return signal.kind === "cancel" ? `cancel:${signal.taskId}` : `run:${signal.runId}`;
}

function decode(payload: string | undefined): WorkSignal | undefined {
  if (payload === "tasks") return { kind: "tasks" };
  if (payload === "tasks:runners") return { kind: "tasks", runnersOnly: true };
  if (payload?.startsWith("cancel:")) return { kind: "cancel", taskId: payload.slice(7) };
  if (payload?.startsWith("run:")) return { kind: "run", runId: payload.slice(4) };
  return undefined;
}

/** Announces `signal` to every process; inside a transaction it goes out when (and only if) that commits. */
export const announce = (db: Db, signal: WorkSignal): Promise<void> => sendSignal(db, CHANNEL, encode(signal));

/** PostgreSQL: the expression that announces `signal`, to select inside a larger statement. */
export const notification = (signal: WorkSignal) => notifyOn(CHANNEL, encode(signal));

export interface WorkSignals {
  /** Resolves once this process listens (PostgreSQL: the LISTEN connection is up, or its first try failed). */
  readonly ready: Promise<void>;
  /** Calls `listener` for every signal; returns the function that stops it. */
  on(listener: SignalListener): () => void;
  /** Calls `listener` when signals may have been missed (the listening connection came back). */
  onResync(listener: () => void): void;
  close(): Promise<void>;
}

export function openWorkSignals(db: Db, databaseUrl: string, log: ListenerLog): WorkSignals {
  const signals = openSignals(isPostgres(db) ? "postgres" : "sqlite", databaseUrl, [CHANNEL], log);
  return {
    ready: signals.ready,
    on: (listener) =>
      signals.on(CHANNEL, (payload) => {
        const signal = decode(payload);
        if (signal) listener(signal);
      }),
    onResync: (listener) => signals.onResync(listener),
    close: () => signals.close(),
  };
}
