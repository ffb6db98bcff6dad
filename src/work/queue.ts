// The task queue, in the database every process shares: tasks enter it inside the transaction of the change that
// triggers them (a trigger for an agent with an open task on the issue joins that task), and leave it cancelled.
// Claiming and leases are in leases.ts.
import { type Selectable, sql } from "kysely";
import type { Actor } from "../api/access.ts";
import { OPEN_TASK_STATUSES } from "../db/enums.ts";
import { type Db, isPostgres } from "../db/index.ts";
import { holdWorkspace } from "../db/lock-order.ts";
import type { Flag, TasksTable } from "../db/schema.ts";
import { newId, now } from "../db/values.ts";
import { recordActivity } from "../events/activity.ts";
import { appendEvent } from "../events/append.ts";
import { markSourceRead } from "../inbox/items.ts";
import { nameOf } from "../platform/names.ts";
import { cancelOpenQuestions } from "./questions.ts";
import { appendRunEvents, runErrorEvent } from "./run-events.ts";
import type { TaskTrigger } from "./schemas.ts";
import { announce, notification } from "./signals.ts";

export type TaskRow = Selectable<TasksTable>;

/** The predicate of the one-open-task-per-agent-and-issue index, written out so both databases infer that index. */
const OPEN_TASK = sql<boolean>`status in ('queued', 'running', 'waiting_approval', 'waiting_input')`;

/** The task's row, locked until commit (PostgreSQL: the lock every writer of its state takes first). */
export const lockTask = (trx: Db, taskId: string): Promise<TaskRow | undefined> =>
  trx
    .selectFrom("tasks")
    .selectAll()
    .where("id", "=", taskId)
    .$if(isPostgres(trx), (query) => query.forUpdate())
    .executeTakeFirst();

export interface NewTask {
  workspaceId: string;
  agentId: string;
  issueId: string;
  trigger: TaskTrigger;
  commentId: string | null;
  /** Who made the change that triggered it. */
  actor: Actor;
  /** Agent-made triggers in a row that led to it (trigger-bounds.ts); 0 (the default) for a person's change. */
  chainDepth?: number;
}

/**
 * Queues a task for the agent on the issue, inside the transaction of the change that triggers it; a task already
 * open for the two takes the new trigger in instead (its run sees the new input). Atomic with concurrent triggers:
 * the database's unique index on open tasks decides which insert wins, the others fold into it. Undefined when the
 * agent is gone.
 */
export async function enqueueTask(trx: Db, input: NewTask): Promise<{ task: TaskRow; created: boolean } | undefined> {
  // The agent before its task (db/lock-order.ts): an agent deleted meanwhile gets no task, instead of failing the
  // change that triggered it.
  if (!(await holdWorkspace(trx, input.workspaceId, { agentId: input.agentId }))) return undefined;
  const postgres = isPostgres(trx);
  const at = now();
  const id = newId();
  const { announced: _announced, ...task } = await trx
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
      // Read from the issue in the same statement: the transaction that triggers the task may have just set it.
      urgent: sql<Flag>`coalesce((select 1 from issues where id = ${input.issueId} and priority = 'urgent'), 0)`,
      chain_depth: input.chainDepth ?? 0,
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
        .doUpdateSet((eb) => ({
          input_version: eb("tasks.input_version", "+", 1),
          updated_at: at,
          // The open task continues the shortest chain folded into it: a person's comment starts it again from 0.
          chain_depth: eb
            .case()
            .when("excluded.chain_depth", "<", eb.ref("tasks.chain_depth"))
            .then(eb.ref("excluded.chain_depth"))
            .else(eb.ref("tasks.chain_depth"))
            .end(),
        })),
    )
    .returningAll()
    // PostgreSQL: a new task is announced by the insert itself (sent at commit), one round trip fewer in the change.
    .$if(postgres, (insert) =>
      insert.returning(
        sql<unknown>`case when tasks.id = ${id} then ${notification({ kind: "tasks" })} end`.as("announced"),
      ),
    )
    .executeTakeFirstOrThrow();
  const created = task.id === id;
  if (created) {
    await appendEvent(trx, {
      workspaceId: task.workspace_id,
      type: "task.queued",
      entityType: "task",
      entityId: task.id,
      issueId: task.issue_id,
      actor: input.actor,
      data: { agent_id: task.agent_id, trigger: task.trigger, comment_id: task.comment_id },
    });
    if (!postgres) await announce(trx, { kind: "tasks" });
  }
  return { task, created };
}

/**
 * Cancels the open tasks of an issue (of one agent, or all) inside the caller's transaction: un-assigning the agent,
 * deleting the issue or the agent. Each is locked as it is read, so it is cancelled in the state it is in: a waiting
 * task claimed meanwhile is cancelled as the running task it became (its process closes its run).
 */
export async function cancelOpenTasks(
  trx: Db,
  filter: { issueId?: string; agentId?: string },
  actor: Actor,
): Promise<void> {
  let query = trx
    .selectFrom("tasks")
    .selectAll()
    .where("status", "in", [...OPEN_TASK_STATUSES])
    .orderBy("id")
    .$if(isPostgres(trx), (select) => select.forUpdate());
  if (filter.issueId) query = query.where("issue_id", "=", filter.issueId);
  if (filter.agentId) query = query.where("agent_id", "=", filter.agentId);
  for (const task of await query.execute()) await cancelTask(trx, task, actor);
}

/**
 * Cancels one open task inside `trx`; false if it had already ended. `task` is its row as read under its lock (FOR
 * UPDATE) in `trx`. A running task's process hears it at commit and stops the run within moments, and closes the
 * run itself; a waiting one's run is closed here. Its pending approvals and open questions end with it. The activity
 * entry says so.
 */
export async function cancelTask(trx: Db, task: TaskRow, actor: Actor): Promise<boolean> {
  const at = now();
  const result = await trx
    .updateTable("tasks")
    .set({ status: "cancelled", resume: 0, finished_at: at, updated_at: at })
    .where("id", "=", task.id)
    .where("status", "in", [...OPEN_TASK_STATUSES])
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return false;
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
  await cancelOpenQuestions(trx, task.id);
  // No process holds a waiting run: its record and its stream end here.
  const closesRun = (task.status === "waiting_approval" || task.status === "waiting_input") && task.run_id !== null;
  if (closesRun) {
    await trx.updateTable("runs").set({ status: "cancelled", finished_at: at }).where("id", "=", task.run_id).execute();
    await appendRunEvents(trx, task.run_id!, [runErrorEvent("The task was cancelled", "cancelled")]);
  }
  await recordActivity(trx, {
    workspaceId: task.workspace_id,
    entityType: "task",
    entityId: task.id,
    issueId: task.issue_id,
    actor,
    action: "task.cancelled",
    details: {
      agent_id: task.agent_id,
      agent_name: await nameOf(trx, task.workspace_id, "agent", task.agent_id),
      trigger: task.trigger,
      status_before: task.status,
    },
  });
  for (const approval of pending) {
    await markSourceRead(trx, approval.id);
    await appendEvent(trx, {
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
    await appendEvent(trx, {
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
  return true;
}
