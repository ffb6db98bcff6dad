// How a claimed task's run ends, each in one transaction that only applies while this process still holds the task's
// lease: succeeded, failed (retried with backoff while attempts remain), waiting for approvals, stopped by a
// cancellation, or handed back at shutdown. The agent's status follows in the same transaction.
import type { Updateable } from "kysely";
import type { ToolCallRecord } from "../agents/model.ts";
import type { Db } from "../db/index.ts";
import { holdWorkspace } from "../db/lock-order.ts";
import type { RunsTable } from "../db/schema.ts";
import { newId, now, timestampAt, toJson } from "../db/values.ts";
import { appendEvent } from "../events/append.ts";
import type { EventType } from "../events/types.ts";
import { tellApprovalsRequested, tellTaskFailed } from "../inbox/notices.ts";
import type { TokenCounts } from "../usage/prices.ts";
import { addRunUsage } from "../usage/record.ts";
import { syncAgentStatus } from "./agent-work-status.ts";
import { toApproval } from "./approvals.ts";
import { type ClaimedTask, retryDelayMs } from "./leases.ts";
import { ASK_HUMAN, type AskHumanInput, askQuestion, parseAskHuman, questionFor } from "./questions.ts";
import { lockTask } from "./queue.ts";
import { appendRunEvents, type RunEvent, runErrorEvent, storeRunEvents } from "./run-events.ts";
import type { Approval, Question } from "./schemas.ts";
import { announce } from "./signals.ts";

/** Why an ending did not apply: the task was cancelled, or another process took it over (lease lost). */
export type NotOurs = "cancelled" | "lost" | "more_input";

/**
 * What the run's recorder knows at its end: what this claim of the run used (a resumed run adds to what it used
 * before), its cost (null: no price known) and the number of its last stored event.
 */
export interface RunTally {
  readonly usageTotals: TokenCounts;
  readonly costUsd: number | null;
  readonly lastSeq: number;
}

/** What this claim of the run used, added to the run (with `also`, more of its columns: its end) and its rollup. */
const addUsage = (trx: Db, claimed: ClaimedTask, tally: RunTally, also?: Updateable<RunsTable>) =>
  addRunUsage(trx, claimed.runId, tally.usageTotals, tally.costUsd, also);

/** What a task's row holds once it succeeded at `at`. */
export const succeededTaskColumns = (at: string) => ({
  status: "succeeded" as const,
  error: null,
  lease_owner: null,
  lease_expires_at: null,
  finished_at: at,
  updated_at: at,
});

/** The run failed at `at`: its record ends, with what it used and its RUN_ERROR event. */
async function failRun(
  trx: Db,
  claimed: ClaimedTask,
  tally: RunTally,
  at: string,
  failure: Omit<Failure, "retryable">,
) {
  await addUsage(trx, claimed, tally, { status: "failed", error: failure.message, finished_at: at });
  await storeRunEvents(trx, claimed.runId, tally.lastSeq, [runErrorEvent(failure.message, failure.code)]);
}

/** Ends the run as cancelled at `at`, if it still runs; true when it did. */
export async function cancelRunningRun(trx: Db, runId: string, at: string): Promise<boolean> {
  const run = await trx
    .updateTable("runs")
    .set({ status: "cancelled", finished_at: at })
    .where("id", "=", runId)
    .where("status", "=", "running")
    .executeTakeFirst();
  return Number(run.numUpdatedRows) > 0;
}

/**
 * First in each ending's transaction: the task's workspace and agent (db/lock-order.ts), so that their deletion and
 * the ending run one after the other. False when either is gone, and the task with it: its run has ended as if
 * cancelled, with nothing left to write.
 */
const holdParents = (trx: Db, claimed: ClaimedTask) =>
  holdWorkspace(trx, claimed.task.workspace_id, { agentId: claimed.task.agent_id });

/** The task row, locked, if this process still holds it. */
async function heldTask(trx: Db, claimed: ClaimedTask, owner: string) {
  const task = await lockTask(trx, claimed.task.id);
  if (!task || task.status === "cancelled") return "cancelled" as const;
  if (task.status !== "running" || task.lease_owner !== owner) return "lost" as const;
  return task;
}

/** A task's own event (the platform's, no actor); `data` adds to the agent's id. */
function taskEvent(
  task: { id: string; workspace_id: string; issue_id: string; agent_id: string },
  type: EventType,
  data: Record<string, unknown>,
) {
  return {
    workspaceId: task.workspace_id,
    type,
    entityType: "task",
    entityId: task.id,
    issueId: task.issue_id,
    actor: null,
    data: { agent_id: task.agent_id, ...data },
  };
}

function runFinishedEvent(claimed: ClaimedTask, status: string, error: string | null) {
  return {
    workspaceId: claimed.task.workspace_id,
    type: "run.finished" as const,
    entityType: "run" as const,
    entityId: claimed.runId,
    issueId: claimed.task.issue_id,
    actor: null,
    data: { task_id: claimed.task.id, status, error },
  };
}

/** Thrown inside a transaction to roll back what it wrote before learning the task is no longer ours. */
class NotOursAnymore extends Error {
  constructor(readonly why: NotOurs) {
    super(why);
  }
}

/** What a run's success writes beside the task: the run's last events, and the agent's answer as its comment. */
export interface Success {
  /** Events of the run not stored yet (after `tally.lastSeq`): stored before its RUN_FINISHED, in one statement. */
  events: RunEvent[];
  /**
   * Commits with the success, or not at all. It runs first: it locks the issue, and whoever changes an issue and then
   * its tasks (an un-assignment) takes the two in that order too.
   */
  alongside?: (trx: Db) => Promise<unknown>;
}

/**
 * The run ended normally: the task succeeded, unless new input arrived since `inputVersion` (then the run goes on),
 * in one transaction with `success`.
 */
export async function completeTask(
  db: Db,
  claimed: ClaimedTask,
  owner: string,
  inputVersion: number,
  tally: RunTally,
  success: Success,
): Promise<NotOurs | "succeeded"> {
  try {
    return await db.transaction().execute((trx) => succeed(trx, claimed, owner, inputVersion, tally, success));
  } catch (error) {
    if (error instanceof NotOursAnymore) return error.why;
    throw error;
  }
}

async function succeed(
  trx: Db,
  claimed: ClaimedTask,
  owner: string,
  inputVersion: number,
  tally: RunTally,
  success: Success,
): Promise<"succeeded"> {
  if (!(await holdParents(trx, claimed))) throw new NotOursAnymore("cancelled");
  await success.alongside?.(trx);
  const at = now();
  const task = await trx
    .updateTable("tasks")
    .set(succeededTaskColumns(at))
    .where("id", "=", claimed.task.id)
    .where("status", "=", "running")
    .where("lease_owner", "=", owner)
    .where("input_version", "=", inputVersion)
    .returning(["id", "agent_id", "workspace_id", "issue_id", "attempt"])
    .executeTakeFirst();
  if (!task) {
    const why = await heldTask(trx, claimed, owner);
    throw new NotOursAnymore(typeof why === "string" ? why : "more_input");
  }
  await addUsage(trx, claimed, tally, { status: "succeeded", finished_at: at });
  const finished = { type: "RUN_FINISHED", threadId: task.id, runId: claimed.runId };
  await storeRunEvents(trx, claimed.runId, tally.lastSeq, [...success.events, finished]);
  await syncAgentStatus(trx, { id: task.agent_id, workspaceId: task.workspace_id });
  await appendEvent(trx, runFinishedEvent(claimed, "succeeded", null));
  await appendEvent(trx, taskEvent(task, "task.succeeded", { attempt: Number(task.attempt), run_id: claimed.runId }));
  return "succeeded";
}

export interface Failure {
  message: string;
  /** Travels in the run's RUN_ERROR event. */
  code: string;
  /** Failures outside the agent (model API, timeout, an MCP server) are retried while attempts remain. */
  retryable: boolean;
}

/** The run failed: the task is queued again after a backoff, or fails for good. Returns the delay, or "failed". */
export async function failTask(
  db: Db,
  claimed: ClaimedTask,
  owner: string,
  failure: Failure,
  tally: RunTally,
  retryBaseMs: number,
): Promise<NotOurs | { retryInMs: number } | "failed"> {
  return db.transaction().execute(async (trx) => {
    if (!(await holdParents(trx, claimed))) return "cancelled";
    const task = await heldTask(trx, claimed, owner);
    if (typeof task === "string") return task;
    const at = now();
    const attempt = Number(task.attempt);
    const retry = failure.retryable && attempt < Number(task.max_attempts ?? 1);
    const retryInMs = retryDelayMs(attempt, retryBaseMs);
    await trx
      .updateTable("tasks")
      .set({
        ...(retry
          ? { status: "queued", available_at: timestampAt(Date.now() + retryInMs) }
          : { status: "failed", finished_at: at }),
        error: failure.message,
        lease_owner: null,
        lease_expires_at: null,
        updated_at: at,
      })
      .where("id", "=", task.id)
      .execute();
    await failRun(trx, claimed, tally, at, failure);
    await syncAgentStatus(trx, { id: task.agent_id, workspaceId: task.workspace_id }, !retry);
    await appendEvent(trx, runFinishedEvent(claimed, "failed", failure.message));
    await appendEvent(
      trx,
      taskEvent(task, retry ? "task.queued" : "task.failed", { attempt, error: failure.message, retry }),
    );
    if (!retry) {
      await tellTaskFailed(trx, {
        workspaceId: task.workspace_id,
        issueId: task.issue_id,
        taskId: task.id,
        agentId: task.agent_id,
        error: failure.message,
      });
    }
    return retry ? { retryInMs } : "failed";
  });
}

/**
 * A cancelled task's run has stopped: its record ends as cancelled (unless it ended otherwise meanwhile, or went with
 * its task's deletion).
 */
export async function closeCancelledRun(db: Db, claimed: ClaimedTask, owner: string, tally: RunTally) {
  await db.transaction().execute(async (trx) => {
    if (!(await holdParents(trx, claimed))) return;
    const closed = await cancelRunningRun(trx, claimed.runId, now());
    if (closed) {
      await addUsage(trx, claimed, tally);
      await storeRunEvents(trx, claimed.runId, tally.lastSeq, [runErrorEvent("The task was cancelled", "cancelled")]);
    }
    await trx
      .updateTable("tasks")
      .set({ lease_owner: null, lease_expires_at: null })
      .where("id", "=", claimed.task.id)
      .where("lease_owner", "=", owner)
      .execute();
    await syncAgentStatus(trx, { id: claimed.task.agent_id, workspaceId: claimed.task.workspace_id });
    if (closed) await appendEvent(trx, runFinishedEvent(claimed, "cancelled", null));
  });
}

const SHUTDOWN = {
  message: "The server shut down during the run; the task was queued again",
  code: "interrupted",
  reason: "shutdown",
};

/** A budget ran out mid-run: the task waits for budget as if never claimed. */
export const BUDGET_SPENT = {
  message: "The monthly budget ran out during the run; the task waits for budget",
  code: "budget_exceeded",
  reason: "budget",
};

/**
 * The process shuts down mid-run: the run ends (interrupted) and the task goes back to the queue at once, its attempt
 * not counted, for this or another process to run again.
 */
export async function releaseTask(
  db: Db,
  claimed: ClaimedTask,
  owner: string,
  tally: RunTally,
  why: { message: string; code: string; reason: string } = SHUTDOWN,
) {
  const { message } = why;
  await db.transaction().execute(async (trx) => {
    if (!(await holdParents(trx, claimed))) return;
    const task = await heldTask(trx, claimed, owner);
    if (typeof task === "string") return;
    const at = now();
    await trx
      .updateTable("tasks")
      .set((eb) => ({
        status: "queued",
        attempt: eb("attempt", "-", 1),
        available_at: at,
        lease_owner: null,
        lease_expires_at: null,
        updated_at: at,
      }))
      .where("id", "=", task.id)
      .execute();
    await failRun(trx, claimed, tally, at, why);
    await syncAgentStatus(trx, { id: task.agent_id, workspaceId: task.workspace_id });
    await appendEvent(trx, runFinishedEvent(claimed, "failed", message));
    await appendEvent(trx, taskEvent(task, "task.queued", { reason: why.reason }));
    await announce(trx, { kind: "tasks" });
  });
}

/**
 * The run stopped before tool calls that need a person: one approval per gated call, one question per ask_human call;
 * the task and run wait (`waiting_input` while a question is open, else `waiting_approval`), and the run's stream shows
 * each request. Nothing of this process is held while they wait.
 */
export async function pauseForPeople(
  db: Db,
  claimed: ClaimedTask,
  owner: string,
  calls: ToolCallRecord[],
  state: { tally: RunTally; commentsSeenUntil: string | null },
): Promise<NotOurs | { approvals: Approval[]; questions: Question[] }> {
  return db.transaction().execute(async (trx) => {
    if (!(await holdParents(trx, claimed))) return "cancelled";
    const task = await heldTask(trx, claimed, owner);
    if (typeof task === "string") return task;
    const at = now();
    const asks = calls.filter((call) => call.name === ASK_HUMAN);
    const questions: Question[] = [];
    for (const call of asks) {
      const parsed = parseAskHuman(call.arguments);
      if (!parsed.ok || (await questionFor(trx, claimed.runId, call.id))) continue;
      questions.push(await askQuestion(trx, { task, runId: claimed.runId, toolCallId: call.id }, parsed.input));
    }
    const asked = await trx
      .selectFrom("approvals")
      .select("tool_call_id")
      .where("run_id", "=", claimed.runId)
      .execute();
    const askedIds = new Set(asked.map((row) => row.tool_call_id));
    const rows = calls
      .filter((call) => call.name !== ASK_HUMAN && !askedIds.has(call.id))
      .map((call) => ({
        id: newId(),
        workspace_id: task.workspace_id,
        task_id: task.id,
        run_id: claimed.runId,
        agent_id: task.agent_id,
        issue_id: task.issue_id,
        tool_call_id: call.id,
        tool_name: call.name,
        arguments: toJson(parseArguments(call.arguments)),
        status: "pending" as const,
        decided_by: null,
        comment: null,
        created_at: at,
        decided_at: null,
      }));
    if (rows.length > 0) await trx.insertInto("approvals").values(rows).execute();
    const status = asks.length > 0 ? "waiting_input" : "waiting_approval";
    await trx
      .updateTable("tasks")
      .set({ status, lease_owner: null, lease_expires_at: null, updated_at: at })
      .where("id", "=", task.id)
      .execute();
    await trx
      .updateTable("runs")
      .set({ status, comments_seen_until: state.commentsSeenUntil })
      .where("id", "=", claimed.runId)
      .execute();
    await addUsage(trx, claimed, state.tally);
    const approvals = rows.map(toApproval);
    await appendRunEvents(
      trx,
      claimed.runId,
      approvals.map((approval) => ({ type: "CUSTOM", name: "approval_requested", value: approval })),
    );
    await syncAgentStatus(trx, { id: task.agent_id, workspaceId: task.workspace_id });
    await appendEvent(
      trx,
      taskEvent(task, `task.${status}`, {
        run_id: claimed.runId,
        approval_ids: approvals.map((each) => each.id),
        ...(asks.length > 0 && { question_ids: questions.map((each) => each.id) }),
      }),
    );
    for (const approval of approvals) {
      await appendEvent(trx, {
        workspaceId: task.workspace_id,
        type: "approval.requested",
        entityType: "approval",
        entityId: approval.id,
        issueId: task.issue_id,
        actor: null,
        data: { task_id: task.id, run_id: claimed.runId, tool_name: approval.tool_name },
      });
    }
    await tellApprovalsRequested(trx, {
      workspaceId: task.workspace_id,
      issueId: task.issue_id,
      taskId: task.id,
      agentId: task.agent_id,
      approvals,
    });
    return { approvals, questions };
  });
}

/**
 * A runner's CLI asked through MCP (ask_human with its task token): the question is created, and the task and its
 * run wait in `waiting_input` with the runner's lease gone, so the runner's next heartbeat stops the CLI. The answer
 * queues the task for a next assignment that resumes the CLI's session (settled.ts).
 */
export async function askFromRunner(db: Db, taskId: string, input: AskHumanInput): Promise<Question> {
  return db.transaction().execute(async (trx) => {
    const found = await trx
      .selectFrom("tasks")
      .select(["workspace_id", "agent_id"])
      .where("id", "=", taskId)
      .executeTakeFirst();
    const gone = new Error("The task is no longer running: nothing was asked");
    if (!found || !(await holdWorkspace(trx, found.workspace_id, { agentId: found.agent_id }))) throw gone;
    const task = await lockTask(trx, taskId);
    if (task?.status !== "running" || task.run_id === null) throw gone;
    const runId = task.run_id;
    const question = await askQuestion(trx, { task, runId, toolCallId: null }, input);
    const at = now();
    await trx
      .updateTable("tasks")
      .set({ status: "waiting_input", lease_owner: null, lease_expires_at: null, updated_at: at })
      .where("id", "=", task.id)
      .execute();
    await trx.updateTable("runs").set({ status: "waiting_input" }).where("id", "=", runId).execute();
    await syncAgentStatus(trx, { id: task.agent_id, workspaceId: task.workspace_id });
    await appendEvent(trx, taskEvent(task, "task.waiting_input", { run_id: runId, question_ids: [question.id] }));
    return question;
  });
}

/** The model's arguments as JSON when they parse, else the text as it came. */
function parseArguments(text: string): unknown {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
