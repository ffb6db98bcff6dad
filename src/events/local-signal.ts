// On SQLite (one server process per database file) a new event is announced inside the process. The announcement is
// only a hint to go and read the outbox: Kysely runs SQLite on one connection, so a read the hint starts waits for the
// writing transaction to finish, and then sees the event if (and only if) it committed.
import { EventEmitter } from "node:events";
import type { WorkspaceEvent } from "./outbox.ts";

const hints = new EventEmitter().setMaxListeners(0);

/** `event` is the event of `seq` itself, when the hint carried it (committed: PostgreSQL notifies only then). */
export type HintListener = (workspaceId: string, seq: number, event?: WorkspaceEvent) => void;

export function signalLocally(workspaceId: string, seq: number): void {
  queueMicrotask(() => hints.emit("event", workspaceId, seq));
}

/** Calls `listener` for every event appended in this process; returns the function that stops it. */
export function onLocalSignal(listener: HintListener): () => void {
  hints.on("event", listener);
  return () => hints.off("event", listener);
}
