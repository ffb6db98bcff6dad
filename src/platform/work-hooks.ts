// What the platform tells the work queue, from inside the transaction of the change itself: there is no assignment
// without its task and no task without its assignment. The platform knows only this interface; work/triggers.ts
// implements it and core.ts wires it, once per process, before any request is served.
import type { Actor } from "../api/access.ts";
import type { Db } from "../db/index.ts";

/** An issue's assignee, as stored: both set or both null. */
export interface Assignee {
  type: string | null;
  id: string | null;
}

export interface WorkHooks {
  /** The issue's assignee changed (or it was created with one). */
  assigneeChanged(
    trx: Db,
    change: { workspaceId: string; issueId: string; before: Assignee | null; after: Assignee; actor: Actor },
  ): Promise<void>;
  /** A comment was added to the issue. */
  commentAdded(
    trx: Db,
    comment: {
      workspaceId: string;
      issueId: string;
      commentId: string;
      content: string;
      author: Actor;
      assignee: Assignee;
    },
  ): Promise<void>;
  /** The issue's priority changed. */
  priorityChanged(trx: Db, change: { issueId: string; priority: string }): Promise<void>;
  /** The issue is being deleted. */
  issueDeleted(trx: Db, change: { issueId: string; actor: Actor }): Promise<void>;
  /** The agent is being deleted. */
  agentDeleted(trx: Db, change: { agentId: string; actor: Actor }): Promise<void>;
  /** Where the agent runs or how many tasks it may run at once changed: its queued tasks may be claimable now. */
  agentCapacityChanged(trx: Db, change: { agentId: string }): Promise<void>;
  /** A monthly budget of the workspace or an agent changed: tasks waiting for budget may run now. */
  budgetChanged(trx: Db, change: { workspaceId: string; agentId?: string }): Promise<void>;
  /** The workspace is being deleted (its row locked: nothing new starts in it). */
  workspaceDeleted(trx: Db, change: { workspaceId: string }): Promise<void>;
}

let wired: WorkHooks | undefined;

export function wireWorkHooks(hooks: WorkHooks): void {
  wired = hooks;
}

/** The wired hooks; a process that changes issues without having wired them has a bug, said at once. */
export function workHooks(): WorkHooks {
  if (!wired) throw new Error("The work hooks are not wired (core.ts wires them)");
  return wired;
}
