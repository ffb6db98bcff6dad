// Claiming tasks with a lease, in the database every process shares: SELECT … FOR UPDATE SKIP LOCKED on PostgreSQL,
// so processes never claim the same task; the lease is renewed while the run lives, and a task whose process stopped
// renewing it is taken up again.
import { type Selectable, sql } from "kysely";
import { type Db, isPostgres } from "../db/index.ts";
import { indexedBy } from "../db/indexed-by.ts";
import type { AgentsTable } from "../db/schema.ts";
import { newId, now, timestampAt } from "../db/values.ts";
import { appendEvent } from "../events/append.ts";
import { tellTaskFailed } from "../inbox/notices.ts";
import { changeAgentStatus } from "../platform/agents/service.ts";
import { withinBudgets } from "../usage/budgets.ts";
import { countNewRun } from "../usage/record.ts";
import { agentWithRunningTasks, lockAgentWork, syncAgentStatus } from "./agent-work-status.ts";
import type { TaskRow } from "./queue.ts";
import { appendRunEvents, runErrorEvent, storeRunEvents } from "./run-events.ts";
import { announce } from "./signals.ts";

interface ClaimSettings {
  /** Names this process in `lease_owner`. */
  owner: string;
  leaseMs: number;
  maxAttempts: number;
  defaultModel: string;
}

export interface ClaimedTask {
  task: TaskRow;
  /** The agent as it was when claimed. */
  agent: Selectable<AgentsTable>;
  runId: string;
  /** When the run started (now, for a new run). */
  runStartedAt: string;
  /** True when the claim resumes a run that waited for approvals (same run, same attempt). */
  resumed: boolean;
  /** Whether the claim saw other claimable tasks after this one (then the worker claims again at once). */
  moreQueued: boolean;
}

/**
 * Queued, or waiting with every approval decided and every question answered: the condition of
 * tasks_claim_order_idx, written out with literals (not parameters) so that both databases match the query to that
 * partial index.
 */
const CLAIMABLE = sql<boolean>`(tasks.status = 'queued' or (tasks.status in ('waiting_approval', 'waiting_input') and tasks.resume = 1))`;

/**
 * A claim's locks (PostgreSQL): its tasks', and their workspaces' and agents' (db/lock-order.ts), each passed by when
 * locked otherwise, so one being deleted is not waited for, nor does its deletion wait for the claim halfway.
 */
export const LOCK_WITH_PARENTS = sql`for update of tasks skip locked for key share of agents, workspaces skip locked`;

/** How many claimable tasks one claim looks at, in case the first ones belong to agents already at their limit. */
const CANDIDATES = 16;

/**
 * Claims the next task this process may run: queued (or waiting with every approval decided), available, of an agent
 * below its `max_concurrent_tasks`; `urgent` issues first, then oldest. Starts its run (or resumes the waiting one)
 * in one transaction. Undefined when nothing is claimable.
 */
export async function claimNextTask(db: Db, settings: ClaimSettings): Promise<ClaimedTask | undefined> {
  return db.transaction().execute(async (trx) => {
    await walkQueueInOrder(trx);
    const claimable = await claimCandidates(trx, now(), CANDIDATES)
      .select(["tasks.id", "tasks.agent_id", "tasks.resume"])
      // Agents bound to runtimes are the runners' (runtimes/claims.ts).
      .where("agents.runtime_select", "is", null)
      .execute();
    for (const [index, candidate] of claimable.entries()) {
      const agent = await agentWithRoom(trx, candidate.agent_id);
      if (!agent) continue;
      const started = await startTask(trx, candidate, agent, settings);
      const moreQueued = index < claimable.length - 1;
      return { ...started, agent, moreQueued };
    }
    return undefined;
  });
}

/**
 * PostgreSQL, first in a claim's transaction: its candidates are read by walking tasks_claim_order_idx in claim order,
 * stopping at the limit. The planner otherwise judges the queue by statistics taken while it was short (a quiet
 * queue, a new database) and prefers a bitmap scan that reads every claimable task and sorts them all: ~5 ms of
 * PostgreSQL's CPU a claim with 1,000 queued, against ~0.3 (bench/work.ts, part 3). Only this transaction is told so.
 */
export async function walkQueueInOrder(trx: Db): Promise<void> {
  if (isPostgres(trx)) await sql`set local enable_bitmapscan = off`.execute(trx);
}

/**
 * The claimable tasks a claim looks at (up to `limit`, available at `at`), in claim order, of agents below their
 * `max_concurrent_tasks` and within their budgets; locked with their parents on PostgreSQL. The caller selects the
 * columns and says which tasks (status, agents' runtimes) are its own, after walkQueueInOrder.
 */
export function claimCandidates(trx: Db, at: string, limit: number) {
  const candidates = trx
    .selectFrom("tasks")
    .innerJoin("agents", "agents.id", "tasks.agent_id")
    .innerJoin("workspaces", "workspaces.id", "tasks.workspace_id")
    // Running tasks per agent, counted once for the whole query.
    .leftJoin(
      (eb) =>
        eb
          .selectFrom("tasks as running")
          .select(["running.agent_id", (inner) => inner.fn.countAll<number>().as("count")])
          .where("running.status", "=", sql.lit("running"))
          .groupBy("running.agent_id")
          .as("busy"),
      (join) => join.onRef("busy.agent_id", "=", "tasks.agent_id"),
    )
    .where(CLAIMABLE)
    .where("tasks.available_at", "<=", at)
    // A task of an agent (or workspace) at its monthly budget waits (waiting_for: budget), not counted as tried.
    .where(withinBudgets())
    .where((eb) => eb(eb.fn.coalesce("busy.count", eb.lit(0)), "<", eb.ref("agents.max_concurrent_tasks")))
    // The order of tasks_claim_order_idx: the next tasks are read from it without sorting the queue.
    .orderBy("tasks.urgent", "desc")
    .orderBy("tasks.created_at")
    .orderBy("tasks.id")
    .limit(limit);
  // SQLite would read every claimable task by the OR of its statuses and sort them all (~0.5 ms a claim with 1,000
  // queued); walking the claim-order index stops at the limit.
  return isPostgres(trx)
    ? candidates.modifyEnd(LOCK_WITH_PARENTS)
    : candidates.withPlugin(indexedBy("tasks", "tasks_claim_order_idx"));
}

/**
 * The agent, if it has room for one more task, counted under its work lock (taken here unless `locked` says the
 * caller holds it): two processes may both have seen room for it in their candidates, and the lock makes the second
 * one count again.
 */
export async function agentWithRoom(
  trx: Db,
  agentId: string,
  locked = false,
): Promise<Selectable<AgentsTable> | undefined> {
  if (!locked) await lockAgentWork(trx, agentId);
  const found = await agentWithRunningTasks(trx, agentId);
  if (!found || Number(found.running_tasks) >= Number(found.max_concurrent_tasks)) return undefined;
  const { running_tasks: _, ...agent } = found;
  return agent;
}

/** What a runner's claim adds to the task and its run: the runtime that holds it and its task token's hash. */
export interface RunnerHold {
  runtimeId: string;
  tokenHash: string;
  /** Shown as the run's model: the runtime's kind and name. */
  model: string;
}

/**
 * Inside a claim's transaction, after the agent's room was counted under its lock: the task runs (a new run, or the
 * waiting one resumed), the agent works, and `task.started` / `run.started` are written.
 */
export async function startTask(
  trx: Db,
  candidate: { id: string; resume: number | string },
  agent: Selectable<AgentsTable>,
  settings: ClaimSettings,
  runner?: RunnerHold,
): Promise<Omit<ClaimedTask, "agent" | "moreQueued">> {
  const at = now();
  const resumed = Number(candidate.resume) === 1;
  const runId = resumed ? undefined : newId();
  const task = await trx
    .updateTable("tasks")
    .set((eb) => ({
      status: "running",
      resume: 0,
      attempt: resumed ? eb.ref("attempt") : eb("attempt", "+", 1),
      max_attempts: eb.fn.coalesce("max_attempts", eb.val(settings.maxAttempts)),
      ...(runId && { run_id: runId }),
      lease_owner: settings.owner,
      lease_expires_at: timestampAt(Date.now() + settings.leaseMs),
      started_at: eb.fn.coalesce("started_at", eb.val(at)),
      updated_at: at,
      ...(runner && { runtime_id: runner.runtimeId, token_hash: runner.tokenHash }),
    }))
    .where("id", "=", candidate.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  const model = runner?.model ?? (agent.model || settings.defaultModel);
  let runStartedAt = at;
  if (runId) {
    await trx
      .insertInto("runs")
      .values({
        id: runId,
        workspace_id: task.workspace_id,
        task_id: task.id,
        agent_id: task.agent_id,
        issue_id: task.issue_id,
        status: "running",
        model,
        input_tokens: 0,
        output_tokens: 0,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        cost_usd: null,
        error: null,
        comments_seen_until: null,
        started_at: at,
        finished_at: null,
      })
      .execute();
    await countNewRun(trx, { workspaceId: task.workspace_id, agentId: task.agent_id, model, startedAt: at });
    // A runner's run is written by the runner's reports: its start is stored here, its events after it.
    if (runner) await storeRunEvents(trx, runId, 0, [{ type: "RUN_STARTED", threadId: task.id, runId }]);
  } else {
    const run = await trx
      .updateTable("runs")
      .set({ status: "running" })
      .where("id", "=", task.run_id)
      .returning("started_at")
      .executeTakeFirst();
    runStartedAt = run?.started_at ?? at;
  }
  // The agent works now: its lock is held and its running tasks counted, so this is the status they call for.
  const actor = { type: "agent" as const, id: task.agent_id };
  await changeAgentStatus(trx, task.workspace_id, task.agent_id, "working", actor, agent.status);
  await appendEvent(trx, {
    workspaceId: task.workspace_id,
    type: "task.started",
    entityType: "task",
    entityId: task.id,
    issueId: task.issue_id,
    actor: null,
    data: { agent_id: task.agent_id, attempt: Number(task.attempt), run_id: task.run_id, resumed },
  });
  if (runId) {
    await appendEvent(trx, {
      workspaceId: task.workspace_id,
      type: "run.started",
      entityType: "run",
      entityId: runId,
      issueId: task.issue_id,
      actor: null,
      data: { task_id: task.id, agent_id: task.agent_id, model },
    });
  }
  return { task, runId: task.run_id ?? runId!, runStartedAt, resumed };
}

export type LeaseState = "held" | "cancelled" | "lost";

/** Extends the lease of a task this process runs; otherwise says why it is no longer ours to run. */
export async function renewLease(db: Db, taskId: string, owner: string, leaseMs: number): Promise<LeaseState> {
  const result = await db
    .updateTable("tasks")
    .set({ lease_expires_at: timestampAt(Date.now() + leaseMs) })
    .where("id", "=", taskId)
    .where("lease_owner", "=", owner)
    .where("status", "=", "running")
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) > 0) return "held";
  const task = await db.selectFrom("tasks").select("status").where("id", "=", taskId).executeTakeFirst();
  return task?.status === "cancelled" ? "cancelled" : "lost";
}

/** `2^(attempt-1)` times the base delay, at most an hour. */
export const retryDelayMs = (attempt: number, baseMs: number): number =>
  Math.min(baseMs * 2 ** Math.max(0, attempt - 1), 3_600_000);

interface RecoverySettings {
  retryBaseMs: number;
}

/**
 * Takes up the tasks whose process stopped renewing their lease (it died, or hung): the run is closed as failed and
 * the task retried, or failed once it used its attempts; a task cancelled meanwhile only gets its run closed.
 * Returns how many it took up.
 */
export async function recoverExpiredLeases(db: Db, settings: RecoverySettings): Promise<number> {
  const postgres = isPostgres(db);
  let recovered = 0;
  for (;;) {
    const done = await db.transaction().execute(async (trx) => {
      let query = trx
        .selectFrom("tasks")
        .innerJoin("agents", "agents.id", "tasks.agent_id")
        .innerJoin("workspaces", "workspaces.id", "tasks.workspace_id")
        .selectAll("tasks")
        .where("tasks.lease_owner", "is not", null)
        .where("tasks.lease_expires_at", "<", now())
        .orderBy("tasks.lease_expires_at")
        .limit(1);
      if (postgres) query = query.modifyEnd(LOCK_WITH_PARENTS);
      const task = await query.executeTakeFirst();
      if (!task) return true;
      await recoverTask(trx, task, settings);
      return false;
    });
    if (done) return recovered;
    recovered++;
  }
}

async function recoverTask(trx: Db, task: TaskRow, settings: RecoverySettings): Promise<void> {
  const at = now();
  const stillRunning = task.status === "running";
  const runStatus = stillRunning ? "failed" : "cancelled";
  const error = stillRunning ? "The process running this task stopped before the run ended" : null;
  if (task.run_id) {
    const run = await trx
      .updateTable("runs")
      .set({ status: runStatus, error, finished_at: at })
      .where("id", "=", task.run_id)
      .where("status", "=", "running")
      .executeTakeFirst();
    if (Number(run.numUpdatedRows) > 0) {
      await appendRunEvents(trx, task.run_id, [
        stillRunning ? runErrorEvent(error!, "process_stopped") : runErrorEvent("The task was cancelled", "cancelled"),
      ]);
    }
  }
  const finalFailure = stillRunning && Number(task.attempt) >= Number(task.max_attempts ?? 1);
  const next = !stillRunning
    ? {}
    : finalFailure
      ? { status: "failed" as const, error, finished_at: at }
      : {
          status: "queued" as const,
          error,
          available_at: timestampAt(Date.now() + retryDelayMs(Number(task.attempt), settings.retryBaseMs)),
        };
  await trx
    .updateTable("tasks")
    .set({ ...next, lease_owner: null, lease_expires_at: null, updated_at: at })
    .where("id", "=", task.id)
    .execute();
  await syncAgentStatus(trx, { id: task.agent_id, workspaceId: task.workspace_id }, finalFailure);
  if (task.run_id) {
    await appendEvent(trx, {
      workspaceId: task.workspace_id,
      type: "run.finished",
      entityType: "run",
      entityId: task.run_id,
      issueId: task.issue_id,
      actor: null,
      data: { task_id: task.id, status: runStatus, error },
    });
  }
  // A runner's long poll hears of the retry (the in-process worker claims after its sweep anyway).
  if (stillRunning && !finalFailure) await announce(trx, { kind: "tasks" });
  if (stillRunning) {
    await appendEvent(trx, {
      workspaceId: task.workspace_id,
      type: finalFailure ? "task.failed" : "task.queued",
      entityType: "task",
      entityId: task.id,
      issueId: task.issue_id,
      actor: null,
      data: { agent_id: task.agent_id, attempt: Number(task.attempt), error, retry: !finalFailure },
    });
  }
  if (finalFailure) {
    await tellTaskFailed(trx, {
      workspaceId: task.workspace_id,
      issueId: task.issue_id,
      taskId: task.id,
      agentId: task.agent_id,
      error,
    });
  }
}
