// When a waiting run waits for nothing more (every approval decided, every question answered), its task goes on:
// an in-process run is resumed from its stored thread by whichever process claims it; a runner's run (its CLI ended
// when it asked) is closed, and the task is queued for the next assignment, which resumes the CLI's session.
import type { Db } from "../db/index.ts";
import { now } from "../db/values.ts";
import { appendEvent } from "../events/append.ts";
import { appendRunEvents } from "./run-events.ts";
import { announce } from "./signals.ts";

const WAITING = ["waiting_approval", "waiting_input"] as const;

/**
 * Inside a decision's or an answer's transaction, which holds the task's row: resumes the task once its run waits for
 * nothing more. True when it did.
 */
export async function resumeWhenSettled(
  trx: Db,
  waiting: { taskId: string; runId: string; at?: string },
): Promise<boolean> {
  const at = waiting.at ?? now();
  // One round trip: what the run still waits for, and whether it is a runner's (its questions have no tool call).
  const run = await trx
    .selectNoFrom((eb) => [
      eb
        .exists(
          eb.selectFrom("approvals").select("id").where("run_id", "=", waiting.runId).where("status", "=", "pending"),
        )
        .as("pending_approval"),
      eb
        .exists(
          eb.selectFrom("questions").select("id").where("run_id", "=", waiting.runId).where("status", "=", "open"),
        )
        .as("open_question"),
      eb
        .exists(
          eb.selectFrom("questions").select("id").where("run_id", "=", waiting.runId).where("tool_call_id", "is", null),
        )
        .as("asked_by_runner"),
    ])
    .executeTakeFirstOrThrow();
  // PostgreSQL answers booleans, SQLite 0 or 1.
  if (Number(run.pending_approval) || Number(run.open_question)) return false;
  const resumed = Number(run.asked_by_runner)
    ? await queueNextAssignment(trx, waiting.taskId, waiting.runId, at)
    : await markResumable(trx, waiting.taskId, at);
  if (resumed) await announce(trx, { kind: "tasks" });
  return resumed;
}

async function markResumable(trx: Db, taskId: string, at: string): Promise<boolean> {
  const task = await trx
    .updateTable("tasks")
    .set({ resume: 1, available_at: at, updated_at: at })
    .where("id", "=", taskId)
    .where("status", "in", [...WAITING])
    .executeTakeFirst();
  return Number(task.numUpdatedRows) > 0;
}

/** A runner's run ends here; its task is queued again, the attempt not counted twice (the claim adds one). */
async function queueNextAssignment(trx: Db, taskId: string, runId: string, at: string): Promise<boolean> {
  const task = await trx
    .updateTable("tasks")
    .set((eb) => ({
      status: "queued",
      resume: 0,
      attempt: eb("attempt", "-", 1),
      available_at: at,
      updated_at: at,
    }))
    .where("id", "=", taskId)
    .where("status", "in", [...WAITING])
    .returning(["id", "workspace_id", "agent_id", "issue_id"])
    .executeTakeFirst();
  if (!task) return false;
  await trx.updateTable("runs").set({ status: "succeeded", finished_at: at }).where("id", "=", runId).execute();
  await appendRunEvents(trx, runId, [{ type: "RUN_FINISHED", threadId: task.id, runId }]);
  const common = { workspaceId: task.workspace_id, issueId: task.issue_id, actor: null };
  await appendEvent(trx, {
    ...common,
    type: "run.finished",
    entityType: "run",
    entityId: runId,
    data: { task_id: task.id, status: "succeeded", error: null },
  });
  await appendEvent(trx, {
    ...common,
    type: "task.queued",
    entityType: "task",
    entityId: task.id,
    data: { agent_id: task.agent_id, reason: "answered" },
  });
  return true;
}
