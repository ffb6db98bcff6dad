// Every task, run and approval state change is announced here, inside the transaction that makes it, after the
// change's other writes. The workspace event outbox (issue 17) is connected at this one function; until then it
// records nothing. One exception: a cancellation writes the activity entry `task.cancelled` (spec: it says so in
// the activity), and every activity entry is an event of its action's type, so it is not announced twice here.
import type { Db } from "../db/index.ts";

export type WorkEventType =
  | "task.queued"
  | "task.started"
  | "task.waiting_approval"
  | "task.succeeded"
  | "task.failed"
  | "run.started"
  | "run.finished"
  | "approval.requested"
  | "approval.decided";

export interface WorkEvent {
  workspaceId: string;
  type: WorkEventType;
  entityType: "task" | "run" | "approval";
  entityId: string;
  issueId: string | null;
  /** Who made the change; null for the platform itself (the worker, the lease sweep). */
  actor: { type: "member" | "agent"; id: string } | null;
  data: Record<string, unknown>;
}

export async function emitWorkEvent(_trx: Db, _event: WorkEvent): Promise<void> {}
