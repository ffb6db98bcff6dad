// The tasks a runner was handed (runner_claims), and which of them it must stop: cancelled, gone with their agent,
// issue or workspace, or no longer its own (its lease ended and the task was retried or taken by another runner).
import type { Db } from "../db/index.ts";
import { holdWorkspace } from "../db/lock-order.ts";
import { now } from "../db/values.ts";
import { appendEvent } from "../events/append.ts";
import { syncAgentStatus } from "../work/agent-work-status.ts";
import { cancelRunningRun } from "../work/outcomes.ts";
import { appendRunEvents, runErrorEvent } from "../work/run-events.ts";
import { leaseOwnerOf } from "./runners.ts";

/**
 * The ids of the tasks this runner works that it must stop now; each is named once (then its claim is marked
 * dropped), and a cancelled task's run is closed here, since the runner will report nothing more about it.
 */
export async function stopList(db: Db, runnerId: string): Promise<string[]> {
  const owner = leaseOwnerOf(runnerId);
  const held = await db
    .selectFrom("runner_claims")
    .leftJoin("tasks", "tasks.id", "runner_claims.task_id")
    .select([
      "runner_claims.task_id",
      "runner_claims.run_id",
      "tasks.id as found",
      "tasks.status",
      "tasks.lease_owner",
      "tasks.workspace_id",
      "tasks.agent_id",
      "tasks.issue_id",
    ])
    .where("runner_claims.runner_id", "=", runnerId)
    .where("runner_claims.ended", "is", null)
    .execute();
  const stop = held.filter(
    (claim) => claim.found === null || claim.status !== "running" || claim.lease_owner !== owner,
  );
  if (stop.length === 0) return [];
  for (const claim of stop) {
    if (claim.status === "cancelled" && claim.lease_owner === owner) {
      await closeCancelledRun(db, {
        taskId: claim.task_id,
        runId: claim.run_id,
        workspaceId: claim.workspace_id!,
        agentId: claim.agent_id!,
        issueId: claim.issue_id!,
        owner,
      });
    }
  }
  const ids = stop.map((claim) => claim.task_id);
  await db
    .updateTable("runner_claims")
    .set({ ended: "dropped" })
    .where("task_id", "in", ids)
    .where("runner_id", "=", runnerId)
    .where("ended", "is", null)
    .execute();
  return ids;
}

export interface HeldRun {
  taskId: string;
  runId: string;
  workspaceId: string;
  agentId: string;
  issueId: string;
  owner: string;
}

/** A cancelled task's run under a runner ends as cancelled, and the runner's lease on it with it. */
export async function closeCancelledRun(db: Db, held: HeldRun): Promise<void> {
  await db.transaction().execute(async (trx) => {
    if (!(await holdWorkspace(trx, held.workspaceId, { agentId: held.agentId }))) return;
    const closed = await cancelRunningRun(trx, held.runId, now());
    if (closed) await appendRunEvents(trx, held.runId, [runErrorEvent("The task was cancelled", "cancelled")]);
    await trx
      .updateTable("tasks")
      .set({ lease_owner: null, lease_expires_at: null })
      .where("id", "=", held.taskId)
      .where("lease_owner", "=", held.owner)
      .execute();
    await syncAgentStatus(trx, { id: held.agentId, workspaceId: held.workspaceId });
    if (closed) {
      await appendEvent(trx, {
        workspaceId: held.workspaceId,
        type: "run.finished",
        entityType: "run",
        entityId: held.runId,
        issueId: held.issueId,
        actor: null,
        data: { task_id: held.taskId, status: "cancelled", error: null },
      });
    }
  });
}
