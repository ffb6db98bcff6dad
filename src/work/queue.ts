// The task queue, in the database every process shares: tasks enter it inside the transaction of the change that
// triggers them, are claimed with a lease (SELECT … FOR UPDATE SKIP LOCKED on PostgreSQL), and are taken up again
// when the process holding one stops renewing its lease.
import { sql } from "kysely";
import { type Db, isPostgres } from "../db/index.ts";
import type { AgentsTable, TasksTable } from "../db/schema.ts";
import { newId, now, nowPlus } from "../db/values.ts";
import type { Actor } from "../platform/access.ts";
import { recordActivity } from "../platform/activity/record.ts";
import { lockAgentWork, runningTaskCount, syncAgentStatus } from "./agent-work-status.ts";
import { appendRunEvents, runErrorEvent } from "./run-events.ts";
import { OPEN_TASK_STATUSES, type TaskTrigger } from "./schemas.ts";
import { announce } from "./signals.ts";
import { emitWorkEvent } from "./work-events.ts";

export type TaskRow = TasksTable;

/** The predicate of the one-open-task-per-agent-and-issue index, written out so both databases infer that index. */
const OPEN_TASK = sql<boolean>`status in ('queued', 'running', 'waiting_approval')`;

export interface NewTask {
  workspaceId: string;
  agentId: string;
  issueId: string;
  trigger: TaskTrigger;
  commentId: string | null;
  /** Who made the change that triggered it. */
  actor: Actor;
}

/**
 * Work changes are written in two steps inside the caller's transaction: first every row, then the announcements
 * (activity entries, work events, signals). Announcing takes the workspace's event lock, held until commit, so a
 * transaction must not wait for any other lock after it: writes first, announcements last.
 */
export type Announce = () => Promise<void>;

export const announceAll = async (announcements: Announce[]): Promise<void> => {
  for (const announce of announcements) await announce();
};

/**
 * Queues a task for the agent on the issue, inside the transaction of the change that triggers it; a task already
 * open for the two takes the new trigger in instead (its run sees the new input). Atomic with concurrent triggers:
 * the database's unique index on open tasks decides which insert wins, the others fold into it.
 */
export async function enqueueTask(
  trx: Db,
  input: NewTask,
): Promise<{ task: TaskRow; created: boolean; announce: Announce }> {
  const at = now();
  const id = newId();
  const task = await trx
    .insertInto("tasks")
    .values({
      id,
      workspace_id: input.workspaceId,
      agent_id: input.agentId,
      issue_id: input.issueId,
      trigger: input.trigger,
      comment_id: input.commentId,
      status: "queued",
      attempt: 0,
      max_attempts: null,
      error: null,
      run_id: null,
      input_version: 0,
      resume: 0,
      available_at: at,
      lease_owner: null,
      lease_expires_at: null,
      created_at: at,
      updated_at: at,
      started_at: null,
      finished_at: null,
    })
    .onConflict((conflict) =>
      conflict
        .columns(["agent_id", "issue_id"])
        .where(OPEN_TASK)
        .doUpdateSet((eb) => ({ input_version: eb("tasks.input_version", "+", 1), updated_at: at })),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
  const created = task.id === id;
  const announceQueued = async () => {
    if (!created) return;
    await emitWorkEvent(trx, {
      workspaceId: task.workspace_id,
      type: "task.queued",
      entityType: "task",
      entityId: task.id,
      issueId: task.issue_id,
      actor: input.actor,
      data: { agent_id: task.agent_id, trigger: task.trigger, comment_id: task.comment_id },
    });
    await announce(trx, { kind: "tasks" });
  };
  return { task, created, announce: announceQueued };
}

/**
 * Cancels the open tasks of an issue (of one agent, or all) inside the caller's transaction: un-assigning the agent,
 * deleting the issue. Returns the announcements to make after the transaction's other writes.
 */
export async function cancelOpenTasks(
  trx: Db,
  filter: { issueId?: string; agentId?: string },
  actor: Actor,
): Promise<Announce[]> {
  let query = trx
    .selectFrom("tasks")
    .selectAll()
    .where("status", "in", [...OPEN_TASK_STATUSES]);
  if (filter.issueId) query = query.where("issue_id", "=", filter.issueId);
  if (filter.agentId) query = query.where("agent_id", "=", filter.agentId);
  const announcements: Announce[] = [];
  for (const task of await query.execute()) {
    const cancelled = await cancelTask(trx, task, actor);
    if (cancelled) announcements.push(cancelled);
  }
  return announcements;
}

/**
 * Cancels one open task inside `trx`; undefined if it had already ended. A running task's process hears it at commit
 * and stops the run within moments; a waiting one's pending approvals end with it. The activity entry says so.
 */
export async function cancelTask(trx: Db, task: TaskRow, actor: Actor): Promise<Announce | undefined> {
  const at = now();
  const result = await trx
    .updateTable("tasks")
    .set({ status: "cancelled", resume: 0, finished_at: at, updated_at: at })
    .where("id", "=", task.id)
    .where("status", "in", [...OPEN_TASK_STATUSES])
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return undefined;
  const pending = await trx
    .selectFrom("approvals")
    .select("id")
    .where("task_id", "=", task.id)
    .where("status", "=", "pending")
    .execute();
  if (pending.length > 0) {
    await trx
      .updateTable("approvals")
      .set({ status: "denied", comment: "The task was cancelled", decided_at: at })
      .where("task_id", "=", task.id)
      .where("status", "=", "pending")
      .execute();
  }
  // No process holds a waiting run: its record and its stream end here.
  const closesRun = task.status === "waiting_approval" && task.run_id !== null;
  if (closesRun) {
    await trx.updateTable("runs").set({ status: "cancelled", finished_at: at }).where("id", "=", task.run_id).execute();
    await appendRunEvents(trx, task.run_id!, [runErrorEvent("The task was cancelled", "cancelled")]);
  }
  return async () => {
    await recordActivity(trx, {
      workspaceId: task.workspace_id,
      entityType: "task",
      entityId: task.id,
      issueId: task.issue_id,
      actor,
      action: "task.cancelled",
      details: { agent_id: task.agent_id, trigger: task.trigger, status_before: task.status },
    });
    for (const approval of pending) {
      await emitWorkEvent(trx, {
        workspaceId: task.workspace_id,
        type: "approval.decided",
        entityType: "approval",
        entityId: approval.id,
        issueId: task.issue_id,
        actor,
        data: { task_id: task.id, status: "denied", reason: "task_cancelled" },
      });
    }
    if (closesRun) {
      await emitWorkEvent(trx, {
        workspaceId: task.workspace_id,
        type: "run.finished",
        entityType: "run",
        entityId: task.run_id!,
        issueId: task.issue_id,
        actor,
        data: { task_id: task.id, status: "cancelled" },
      });
    }
    if (task.status === "running") await announce(trx, { kind: "cancel", taskId: task.id });
  };
}

export interface ClaimSettings {
  /** Names this process in `lease_owner`. */
  owner: string;
  leaseMs: number;
  maxAttempts: number;
  defaultModel: string;
}

export interface ClaimedTask {
  task: TaskRow;
  /** The agent as it was when claimed. */
  agent: AgentsTable;
  runId: string;
  /** When the run started (now, for a new run). */
  runStartedAt: string;
  /** True when the claim resumes a run that waited for approvals (same run, same attempt). */
  resumed: boolean;
}

/** How many claimable tasks one claim looks at, in case the first ones belong to agents already at their limit. */
const CANDIDATES = 16;

/**
 * Claims the next task this process may run: queued (or waiting with every approval decided), available, of an agent
 * below its `max_concurrent_tasks`; `urgent` issues first, then oldest. Starts its run (or resumes the waiting one)
 * and sets the agent working, all in one transaction. Undefined when nothing is claimable.
 */
export async function claimNextTask(db: Db, settings: ClaimSettings): Promise<ClaimedTask | undefined> {
  const postgres = isPostgres(db);
  return db.transaction().execute(async (trx) => {
    const at = now();
    let candidates = trx
      .selectFrom("tasks")
      .innerJoin("agents", "agents.id", "tasks.agent_id")
      .leftJoin("issues", "issues.id", "tasks.issue_id")
      // Running tasks per agent, counted once for the whole query.
      .leftJoin(
        (eb) =>
          eb
            .selectFrom("tasks as running")
            .select(["running.agent_id", (inner) => inner.fn.countAll<number>().as("count")])
            .where("running.status", "=", "running")
            .groupBy("running.agent_id")
            .as("busy"),
        (join) => join.onRef("busy.agent_id", "=", "tasks.agent_id"),
      )
      .select(["tasks.id", "tasks.agent_id", "tasks.resume"])
      .where((eb) =>
        eb.or([
          eb("tasks.status", "=", "queued"),
          eb.and([eb("tasks.status", "=", "waiting_approval"), eb("tasks.resume", "=", 1)]),
        ]),
      )
      .where("tasks.available_at", "<=", at)
      .where((eb) => eb(eb.fn.coalesce("busy.count", eb.lit(0)), "<", eb.ref("agents.max_concurrent_tasks")))
      .orderBy(sql`case when issues.priority = 'urgent' then 0 else 1 end`)
      .orderBy("tasks.created_at")
      .orderBy("tasks.id")
      .limit(CANDIDATES);
    if (postgres) candidates = candidates.forUpdate("tasks").skipLocked();
    for (const candidate of await candidates.execute()) {
      // Two processes may both have seen room for the agent: the lock makes the second one count again.
      await lockAgentWork(trx, candidate.agent_id);
      const agent = await trx.selectFrom("agents").selectAll().where("id", "=", candidate.agent_id).executeTakeFirst();
      if (!agent || (await runningTaskCount(trx, agent.id)) >= Number(agent.max_concurrent_tasks)) continue;
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
          lease_expires_at: nowPlus(settings.leaseMs),
          started_at: eb.fn.coalesce("started_at", eb.val(at)),
          updated_at: at,
        }))
        .where("id", "=", candidate.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      const model = agent.model || settings.defaultModel;
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
            error: null,
            comments_seen_until: null,
            started_at: at,
            finished_at: null,
          })
          .execute();
      } else {
        const run = await trx
          .updateTable("runs")
          .set({ status: "running" })
          .where("id", "=", task.run_id)
          .returning("started_at")
          .executeTakeFirst();
        runStartedAt = run?.started_at ?? at;
      }
      await syncAgentStatus(trx, { id: task.agent_id, workspaceId: task.workspace_id });
      await emitWorkEvent(trx, {
        workspaceId: task.workspace_id,
        type: "task.started",
        entityType: "task",
        entityId: task.id,
        issueId: task.issue_id,
        actor: null,
        data: { agent_id: task.agent_id, attempt: Number(task.attempt), run_id: task.run_id, resumed },
      });
      if (runId) {
        await emitWorkEvent(trx, {
          workspaceId: task.workspace_id,
          type: "run.started",
          entityType: "run",
          entityId: runId,
          issueId: task.issue_id,
          actor: null,
          data: { task_id: task.id, agent_id: task.agent_id, model },
        });
      }
      return { task, agent, runId: task.run_id ?? runId!, runStartedAt, resumed };
    }
    return undefined;
  });
}

export type LeaseState = "held" | "cancelled" | "lost";

/** Extends the lease of a task this process runs; otherwise says why it is no longer ours to run. */
export async function renewLease(db: Db, taskId: string, owner: string, leaseMs: number): Promise<LeaseState> {
  const result = await db
    .updateTable("tasks")
    .set({ lease_expires_at: nowPlus(leaseMs) })
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

export interface RecoverySettings {
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
        .selectAll()
        .where("lease_owner", "is not", null)
        .where("lease_expires_at", "<", now())
        .orderBy("lease_expires_at")
        .limit(1);
      if (postgres) query = query.forUpdate().skipLocked();
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
      ? { status: "failed", error, finished_at: at }
      : {
          status: "queued",
          error,
          available_at: nowPlus(retryDelayMs(Number(task.attempt), settings.retryBaseMs)),
        };
  await trx
    .updateTable("tasks")
    .set({ ...next, lease_owner: null, lease_expires_at: null, updated_at: at })
    .where("id", "=", task.id)
    .execute();
  await syncAgentStatus(trx, { id: task.agent_id, workspaceId: task.workspace_id }, finalFailure);
  if (task.run_id) {
    await emitWorkEvent(trx, {
      workspaceId: task.workspace_id,
      type: "run.finished",
      entityType: "run",
      entityId: task.run_id,
      issueId: task.issue_id,
      actor: null,
      data: { task_id: task.id, status: runStatus, error },
    });
  }
  if (stillRunning) {
    await emitWorkEvent(trx, {
      workspaceId: task.workspace_id,
      type: finalFailure ? "task.failed" : "task.queued",
      entityType: "task",
      entityId: task.id,
      issueId: task.issue_id,
      actor: null,
      data: { agent_id: task.agent_id, attempt: Number(task.attempt), error, retry: !finalFailure },
    });
  }
}
