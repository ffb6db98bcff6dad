// What makes an agent work: the platform's work hooks (platform/work-hooks.ts), run by the platform services inside
// the transaction of the change itself, so there is no assignment without its task and no task without its
// assignment.
import { OPEN_TASK_STATUSES } from "../db/enums.ts";
import type { Db } from "../db/index.ts";
import { mentionedIn } from "../inbox/mentions.ts";
import type { Assignee, WorkHooks } from "../platform/work-hooks.ts";
import { syncAgentStatus } from "./agent-work-status.ts";
import { cancelOpenTasks, enqueueTask, type NewTask } from "./queue.ts";
import { announce } from "./signals.ts";
import { boundReached, chainDepthOf, recordStoppedTrigger, type TriggerBounds } from "./trigger-bounds.ts";

const agentOf = (assignee: Assignee | null): string | undefined =>
  assignee?.type === "agent" && assignee.id ? assignee.id : undefined;

/** Queues the task a change triggers, unless a bound on agents triggering agents stops it (trigger-bounds.ts). */
async function trigger(trx: Db, task: NewTask, bounds: TriggerBounds): Promise<void> {
  const depth = await chainDepthOf(trx, task.actor, task.issueId);
  const stoppedBy = await boundReached(trx, task.agentId, depth, bounds);
  if (stoppedBy) await recordStoppedTrigger(trx, task, depth, stoppedBy, bounds);
  else await enqueueTask(trx, { ...task, chainDepth: depth });
}

/** The issue's assignee changed (or it was created with one): the new agent gets a task, the old one's is cancelled. */
const assigneeChanged =
  (bounds: TriggerBounds): WorkHooks["assigneeChanged"] =>
  async (trx, change) => {
    const before = agentOf(change.before);
    const after = agentOf(change.after);
    if (before === after) return;
    // An agent handing its issue on (to someone else, or to nobody) does so as part of its work: its run goes on.
    const handedOnByItself = change.actor.type === "agent" && change.actor.id === before;
    if (before && !handedOnByItself) {
      await cancelOpenTasks(trx, { issueId: change.issueId, agentId: before }, change.actor);
    }
    if (after) {
      const task = { agentId: after, issueId: change.issueId, trigger: "assigned", commentId: null } as const;
      await trigger(trx, { ...task, workspaceId: change.workspaceId, actor: change.actor }, bounds);
    }
  };

/**
 * A comment: the agent the issue is assigned to gets a task (unless it wrote the comment), and so does every agent
 * the comment names as `@<agent name>` (case-insensitive; spaces in a name may be written as `-`).
 */
const commentAdded =
  (bounds: TriggerBounds): WorkHooks["commentAdded"] =>
  async (trx, comment) => {
    const triggers = new Map<string, "comment" | "mention">();
    const assigned = agentOf(comment.assignee);
    if (assigned) triggers.set(assigned, "comment");
    if (comment.content.includes("@")) {
      const agents = await trx
        .selectFrom("agents")
        .select(["id", "name"])
        .where("workspace_id", "=", comment.workspaceId)
        .execute();
      for (const agent of mentionedIn(comment.content, agents)) triggers.set(agent.id, "mention");
    }
    // The agent's own comments never trigger it.
    if (comment.author.type === "agent") triggers.delete(comment.author.id);
    // In one order, so two transactions counting the same agents' triggers (trigger-bounds.ts) wait, never deadlock.
    for (const agentId of [...triggers.keys()].sort()) {
      const task = { agentId, issueId: comment.issueId, trigger: triggers.get(agentId)!, commentId: comment.commentId };
      await trigger(trx, { ...task, workspaceId: comment.workspaceId, actor: comment.author }, bounds);
    }
  };

/** The issue's priority changed: its open tasks wait in the queue by the new one (urgent first). */
const priorityChanged: WorkHooks["priorityChanged"] = async (trx, change) => {
  await trx
    .updateTable("tasks")
    .set({ urgent: change.priority === "urgent" ? 1 : 0 })
    .where("issue_id", "=", change.issueId)
    .where("status", "in", [...OPEN_TASK_STATUSES])
    .execute();
};

/** The issue is being deleted: its open tasks are cancelled (and kept, with their runs). */
const issueDeleted: WorkHooks["issueDeleted"] = (trx, change) =>
  cancelOpenTasks(trx, { issueId: change.issueId }, change.actor);

/** The agent is being deleted: its running tasks stop (their rows go with the agent). */
const agentDeleted: WorkHooks["agentDeleted"] = async (trx, change) => {
  await cancelOpenTasks(trx, { agentId: change.agentId }, change.actor);
  await wakeReadersOfOpenRuns(trx, "agent_id", change.agentId);
};

/** The workspace is being deleted: its tasks go with it, and the processes running some are told to stop them. */
const workspaceDeleted: WorkHooks["workspaceDeleted"] = async (trx, { workspaceId }) => {
  const running = await trx
    .selectFrom("tasks")
    .select("id")
    .where("workspace_id", "=", workspaceId)
    .where("status", "=", "running")
    .execute();
  for (const task of running) await announce(trx, { kind: "cancel", taskId: task.id });
  await wakeReadersOfOpenRuns(trx, "workspace_id", workspaceId);
};

/** Open runs going with a deletion get no last event: their streams' readers are woken to find them gone. */
async function wakeReadersOfOpenRuns(trx: Db, column: "agent_id" | "workspace_id", id: string): Promise<void> {
  const open = await trx
    .selectFrom("runs")
    .select("id")
    .where(column, "=", id)
    .where("status", "in", ["running", "waiting_approval", "waiting_input"])
    .execute();
  for (const run of open) await announce(trx, { kind: "run", runId: run.id });
}

/** A budget changed: idle agents may be blocked now, blocked ones free, and tasks waiting for budget claimable. */
const budgetChanged: WorkHooks["budgetChanged"] = async (trx, { workspaceId, agentId }) => {
  const agents = await trx
    .selectFrom("agents")
    .select("id")
    .where("workspace_id", "=", workspaceId)
    .$if(agentId !== undefined, (query) => query.where("id", "=", agentId!))
    .where("status", "in", ["idle", "blocked"])
    .execute();
  for (const agent of agents) await syncAgentStatus(trx, { id: agent.id, workspaceId });
  await announce(trx, { kind: "tasks" });
};

/** Claims look again (a runner's long poll waits for a signal while the queue's tasks wait for room). */
const agentCapacityChanged: WorkHooks["agentCapacityChanged"] = async (trx) => {
  await announce(trx, { kind: "tasks" });
};

/** The hooks, with the bounds on agents triggering agents (config: work.triggerBounds). */
export const workTriggers = (bounds: TriggerBounds): WorkHooks => ({
  assigneeChanged: assigneeChanged(bounds),
  commentAdded: commentAdded(bounds),
  budgetChanged,
  agentCapacityChanged,
  priorityChanged,
  issueDeleted,
  agentDeleted,
  workspaceDeleted,
});
