// What a runner reports about a task it holds (spec runtimes.md §2): its events (stored as the run's, idempotent by
// seq), its session, its end (complete or fail). Each applies only while the runner holds the task (status running,
// its lease, the run it was handed); otherwise 409 and nothing changes. A report repeated after it applied is
// answered as the first was.

import type { Selectable } from "kysely";
import type { Actor } from "../api/access.ts";
import { type Db, databaseRefusal } from "../db/index.ts";
import { holdWorkspace } from "../db/lock-order.ts";
import type { AgentsTable, RunnerClaimsTable, RunnersTable } from "../db/schema.ts";
import { isId, now, timestampAt } from "../db/values.ts";
import { appendEvent } from "../events/append.ts";
import { conflict, invalid } from "../http/errors.ts";
import { addComment } from "../platform/comments/service.ts";
import { NO_TOKENS, type PriceTable } from "../usage/prices.ts";
import { syncAgentStatus } from "../work/agent-work-status.ts";
import type { ClaimedTask } from "../work/leases.ts";
import { failTask, succeededTaskColumns } from "../work/outcomes.ts";
import { enqueueTask, lockTask, type TaskRow } from "../work/queue.ts";
import { lastEventSeq, type RunEvent, storeRunEvents, streamRunEvents } from "../work/run-events.ts";
import { announce } from "../work/signals.ts";
import { closeCancelledRun } from "./held-tasks.ts";
import { leaseOwnerOf } from "./runners.ts";
import type { CompleteInput, FailInput, RunnerEventInput } from "./schemas.ts";
import { addRunnerUsage } from "./usage.ts";

const NOT_HELD = "This runner does not hold the task (it ended, was cancelled, or its lease was lost)";

/** Runner event n is the run's event n + 1: the run's RUN_STARTED, stored at the claim, is its first. */
const SEQ_OFFSET = 1;

interface Held {
  task: TaskRow;
  claim: RunnerClaimsTable;
  /** Read with the claim, for the task's end: what prices the run, and whether it still runs on runtimes. */
  agent: HeldAgent;
  runStartedAt: string | null;
}

export type HeldAgent = {
  [Column in "model" | "runtime_config" | "runtime_select"]: Selectable<AgentsTable>[Column] | null;
};

type Standing = { held: Held } | { cancelled: RunnerClaimsTable & { task?: TaskRow } } | { ended: string } | "not_held";

/** Where the runner stands with the task: holds it, saw it cancelled (or go away), ended it, or never had it. */
async function standing(db: Db, runner: RunnersTable, taskId: string): Promise<Standing> {
  if (!isId(taskId)) return "not_held";
  // One read: the runner's claim on the task, and the task as it is now (absent once its agent was deleted).
  const row = await db
    .selectFrom("runner_claims")
    .leftJoin("tasks", (join) =>
      join.onRef("tasks.id", "=", "runner_claims.task_id").on("tasks.workspace_id", "=", runner.workspace_id),
    )
    .leftJoin("agents", "agents.id", "tasks.agent_id")
    .leftJoin("runs", "runs.id", "runner_claims.run_id")
    .selectAll("tasks")
    .select([
      "runner_claims.task_id as claim_task_id",
      "runner_claims.runner_id as claim_runner_id",
      "runner_claims.run_id as claim_run_id",
      "runner_claims.input_version as claim_input_version",
      "runner_claims.ended as claim_ended",
      "runner_claims.claimed_at as claim_claimed_at",
      "agents.model as agent_model",
      "agents.runtime_config as agent_runtime_config",
      "agents.runtime_select as agent_runtime_select",
      "runs.started_at as run_started_at",
    ])
    .where("runner_claims.task_id", "=", taskId)
    .where("runner_claims.runner_id", "=", runner.id)
    .executeTakeFirst();
  if (!row) return "not_held";
  const claim: RunnerClaimsTable = {
    task_id: row.claim_task_id,
    runner_id: row.claim_runner_id,
    run_id: row.claim_run_id,
    input_version: row.claim_input_version,
    ended: row.claim_ended,
    claimed_at: row.claim_claimed_at,
  };
  const task = row.id === null ? undefined : (row as unknown as TaskRow);
  const owner = leaseOwnerOf(runner.id);
  if (!task) return { cancelled: claim };
  if (task.status === "cancelled" && task.run_id === claim.run_id) return { cancelled: { ...claim, task } };
  if (claim.ended === "succeeded" || claim.ended === "failed") return { ended: claim.ended };
  if (task.status !== "running" || task.lease_owner !== owner || task.run_id !== claim.run_id) return "not_held";
  const agent = {
    model: row.agent_model,
    runtime_config: row.agent_runtime_config,
    runtime_select: row.agent_runtime_select,
  };
  return { held: { task, claim, agent, runStartedAt: row.run_started_at } };
}

async function renew(db: Db, runner: RunnersTable, taskId: string, leaseMs: number): Promise<void> {
  await db
    .updateTable("tasks")
    .set({ lease_expires_at: timestampAt(Date.now() + leaseMs) })
    .where("id", "=", taskId)
    .where("lease_owner", "=", leaseOwnerOf(runner.id))
    .where("status", "=", "running")
    .execute();
}

/** The events of a report not stored yet (`stored`: the run's last seq), which must follow on from them. */
function freshEvents(events: RunnerEventInput[], stored: number): RunEvent[] {
  const fresh = [...events].sort((a, b) => a.seq - b.seq).filter((event) => event.seq + SEQ_OFFSET > stored);
  const expected = stored - SEQ_OFFSET + 1;
  for (const [index, event] of fresh.entries()) {
    if (event.seq !== expected + index) {
      throw invalid(["body", "events"], `Events must follow on from seq ${expected - 1}, without gaps`);
    }
  }
  return fresh.map(({ seq: _, ...event }) => event as RunEvent);
}

/** `POST runner/tasks/{id}/events`: `{cancel: true}` once the task was cancelled under this runner. */
export async function reportEvents(
  db: Db,
  runner: RunnersTable,
  taskId: string,
  events: RunnerEventInput[],
  leaseMs: number,
): Promise<{ cancel: boolean }> {
  const found = await standing(db, runner, taskId);
  if (typeof found === "object" && "cancelled" in found) {
    const { task } = found.cancelled;
    if (task && task.lease_owner === leaseOwnerOf(runner.id)) {
      await closeCancelledRun(db, {
        taskId: task.id,
        runId: found.cancelled.run_id,
        workspaceId: task.workspace_id,
        agentId: task.agent_id,
        issueId: task.issue_id,
        owner: leaseOwnerOf(runner.id),
      });
    }
    return { cancel: true };
  }
  if (!(typeof found === "object" && "held" in found)) throw conflict(NOT_HELD);
  const { task, claim } = found.held;
  await renew(db, runner, task.id, leaseMs);
  const stored = await lastEventSeq(db, claim.run_id);
  const toStore = freshEvents(events, stored);
  if (toStore.length === 0) return { cancel: false };
  try {
    await streamRunEvents(db, claim.run_id, stored, toStore);
  } catch (error) {
    // The same batch sent twice at once: the other copy stored it.
    if (databaseRefusal(error) !== "unique") throw error;
  }
  return { cancel: false };
}

/**
 * `POST runner/tasks/{id}/session`: the CLI's resume pointer. Also taken for the run the CLI paused by asking a
 * question (ask_human), which the answer resumes from it.
 */
export async function reportSession(
  db: Db,
  runner: RunnersTable,
  taskId: string,
  session: { session_id: string; work_dir: string },
  leaseMs: number,
): Promise<void> {
  const found = await standing(db, runner, taskId);
  if (!(typeof found === "object" && "held" in found)) {
    if (await sessionOfAskingRun(db, runner, taskId, session)) return;
    throw conflict(NOT_HELD);
  }
  const { task } = found.held;
  await db
    .updateTable("tasks")
    .set({
      session_id: session.session_id,
      work_dir: session.work_dir,
      lease_expires_at: timestampAt(Date.now() + leaseMs),
    })
    .where("id", "=", task.id)
    .where("lease_owner", "=", leaseOwnerOf(runner.id))
    .where("status", "=", "running")
    .execute();
}

/** The resume pointer of the runner's own run that waits for an answer; false when the task is not that. */
async function sessionOfAskingRun(
  db: Db,
  runner: RunnersTable,
  taskId: string,
  session: { session_id: string; work_dir: string },
): Promise<boolean> {
  if (!isId(taskId)) return false;
  const updated = await db
    .updateTable("tasks")
    .set({ session_id: session.session_id, work_dir: session.work_dir })
    .where("id", "=", taskId)
    .where("workspace_id", "=", runner.workspace_id)
    .where("status", "=", "waiting_input")
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom("runner_claims")
          .select("runner_claims.task_id")
          .whereRef("runner_claims.task_id", "=", "tasks.id")
          .whereRef("runner_claims.run_id", "=", "tasks.run_id")
          .where("runner_claims.runner_id", "=", runner.id),
      ),
    )
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}

/** Thrown inside a transaction to roll back what it wrote before learning the task is no longer held. */
class NotHeld extends Error {}

/**
 * `POST runner/tasks/{id}/complete`: the run and task succeed; the output is the agent's comment unless the run
 * commented itself. A trigger folded in while the CLI ran (a new comment) queues the next task, which resumes the
 * session.
 */
export async function completeRunnerTask(
  db: Db,
  runner: RunnersTable,
  taskId: string,
  input: CompleteInput,
  prices: PriceTable,
) {
  const found = await standing(db, runner, taskId);
  if (typeof found === "object" && "ended" in found && found.ended === "succeeded") return;
  if (!(typeof found === "object" && "held" in found)) throw conflict(NOT_HELD);
  const { claim } = found.held;
  const owner = leaseOwnerOf(runner.id);
  try {
    await db.transaction().execute(async (trx) => {
      const before = found.held.task;
      if (!(await holdWorkspace(trx, before.workspace_id, { agentId: before.agent_id }))) throw new NotHeld();
      const task = await lockTask(trx, taskId);
      if (task?.status !== "running" || task.lease_owner !== owner || task.run_id !== claim.run_id) {
        throw new NotHeld();
      }
      const actor: Actor = { type: "agent", id: task.agent_id };
      const commented = await trx
        .selectFrom("comments")
        .select("id")
        .where("issue_id", "=", task.issue_id)
        .where("author_type", "=", "agent")
        .where("author_id", "=", task.agent_id)
        .where("created_at", ">=", found.held.runStartedAt ?? task.started_at ?? task.created_at)
        .executeTakeFirst();
      if (!commented && input.output.trim() !== "") {
        await addComment(trx, task.workspace_id, task.issue_id, { content: input.output }, actor);
      }
      const at = now();
      await trx
        .updateTable("tasks")
        .set({
          ...succeededTaskColumns(at),
          ...(input.session_id !== undefined && { session_id: input.session_id }),
        })
        .where("id", "=", task.id)
        .execute();
      await trx
        .updateTable("runs")
        .set({ status: "succeeded", finished_at: at })
        .where("id", "=", claim.run_id)
        .execute();
      await addRunnerUsage(trx, claim.run_id, found.held.agent, input.usage, prices);
      const finished: RunEvent = { type: "RUN_FINISHED", threadId: task.id, runId: claim.run_id };
      if (input.branch !== undefined || input.usage?.cost_usd !== undefined) {
        finished.result = {
          ...(input.branch !== undefined && { branch: input.branch }),
          ...(input.usage?.cost_usd !== undefined && { cost_usd: input.usage.cost_usd }),
        };
      }
      const stored = await lastEventSeq(trx, claim.run_id);
      await storeRunEvents(trx, claim.run_id, stored, [...freshEvents(input.events ?? [], stored), finished]);
      await trx.updateTable("runner_claims").set({ ended: "succeeded" }).where("task_id", "=", task.id).execute();
      await syncAgentStatus(trx, { id: task.agent_id, workspaceId: task.workspace_id });
      await appendEvent(trx, runFinished(task, claim.run_id, "succeeded", null));
      await appendEvent(trx, {
        workspaceId: task.workspace_id,
        type: "task.succeeded",
        entityType: "task",
        entityId: task.id,
        issueId: task.issue_id,
        actor: null,
        data: {
          agent_id: task.agent_id,
          attempt: Number(task.attempt),
          run_id: claim.run_id,
          branch: input.branch ?? null,
        },
      });
      if (Number(task.input_version) > Number(claim.input_version)) {
        await enqueueTask(trx, {
          workspaceId: task.workspace_id,
          agentId: task.agent_id,
          issueId: task.issue_id,
          trigger: task.trigger === "mention" ? "mention" : "comment",
          commentId: null,
          actor,
        });
      }
      // The runtime has a free slot again: a long poll waiting on a fuller pool may take work now. So has the agent,
      // whose queued tasks are the runners' unless it was moved to this server meanwhile.
      await announce(trx, { kind: "tasks", runnersOnly: found.held.agent.runtime_select !== null });
    });
  } catch (error) {
    if (error instanceof NotHeld) throw conflict(NOT_HELD);
    throw error;
  }
}

function runFinished(task: TaskRow, runId: string, status: string, error: string | null) {
  return {
    workspaceId: task.workspace_id,
    type: "run.finished" as const,
    entityType: "run" as const,
    entityId: runId,
    issueId: task.issue_id,
    actor: null,
    data: { task_id: task.id, status, error },
  };
}

/** `POST runner/tasks/{id}/fail`: retried with the usual backoff while retryable and attempts remain, else failed. */
export async function failRunnerTask(
  db: Db,
  runner: RunnersTable,
  taskId: string,
  input: FailInput,
  retryBaseMs: number,
): Promise<void> {
  const found = await standing(db, runner, taskId);
  if (typeof found === "object" && "ended" in found && found.ended === "failed") return;
  if (!(typeof found === "object" && "held" in found)) throw conflict(NOT_HELD);
  const { task, claim } = found.held;
  const claimed: ClaimedTask = {
    task,
    agent: undefined as never,
    runId: claim.run_id,
    runStartedAt: task.started_at ?? task.created_at,
    resumed: false,
    moreQueued: false,
  };
  const tally = {
    usageTotals: NO_TOKENS,
    costUsd: null,
    lastSeq: await lastEventSeq(db, claim.run_id),
  };
  const ended = await failTask(
    db,
    claimed,
    leaseOwnerOf(runner.id),
    { message: input.error, code: "runner_failed", retryable: input.retryable },
    tally,
    retryBaseMs,
  );
  if (typeof ended === "string" && ended !== "failed") throw conflict(NOT_HELD);
  await db.updateTable("runner_claims").set({ ended: "failed" }).where("task_id", "=", task.id).execute();
  await announce(db, { kind: "tasks", runnersOnly: found.held.agent.runtime_select !== null });
}
