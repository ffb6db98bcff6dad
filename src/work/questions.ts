// Questions: what an agent's run asks a person through ask_human (spec control.md §3), and the answers. Asking parks
// the task in `waiting_input` with nothing of a process held; the answer is the call's result when the run resumes
// (in-process: the same run, from its stored thread; a runner: the next assignment resumes the CLI's session).

import { z } from "zod";
import type { Actor } from "../api/access.ts";
import { text } from "../api/fields.ts";
import type { Page } from "../api/pagination.ts";
import { getInWorkspace, listNewestInWorkspace } from "../api/workspace-rows.ts";
import { inWorkspace } from "../api/workspace-transaction.ts";
import { type Db, isPostgres } from "../db/index.ts";
import type { QuestionsTable } from "../db/schema.ts";
import { fromJson, newId, now, toJson } from "../db/values.ts";
import { appendEvent } from "../events/append.ts";
import { conflict, HttpError } from "../http/errors.ts";
import { markSourceRead } from "../inbox/items.ts";
import { tellQuestionAsked } from "../inbox/notices.ts";
import { appendRunEvents } from "./run-events.ts";
import type { Question, QuestionAnswer, QuestionStatus } from "./schemas.ts";
import { resumeWhenSettled } from "./settled.ts";

export const ASK_HUMAN = "ask_human";

export const askHumanInput = z
  .object({
    question: text(10_000)
      .trim()
      .min(1)
      .describe("What you need a person to tell you, with enough context to answer it without opening anything"),
    options: z
      .array(text(500).trim().min(1))
      .min(1)
      .max(20)
      .optional()
      .describe("The answers to choose from (omit for a free-text answer)"),
    multiple: z.boolean().optional().describe("With options: whether the person may choose several (default false)"),
  })
  .refine((input) => !input.options || new Set(input.options).size === input.options.length, {
    message: "options must differ from one another",
    path: ["options"],
  });
export type AskHumanInput = z.infer<typeof askHumanInput>;

export const ASK_HUMAN_DESCRIPTION =
  "Ask a person of this workspace a question and wait for the answer, when you are unsure and guessing could do " +
  "harm or waste work. Give `options` when the answer is a choice (with `multiple` to allow several). Your work " +
  "pauses until someone answers; the answer is this tool's result.";

/** The task and run a question belongs to. */
export interface AskingRun {
  task: { id: string; workspace_id: string; agent_id: string; issue_id: string };
  runId: string;
  /** The model's ask_human call; null for a runner's CLI asking through MCP. */
  toolCallId: string | null;
}

export const toQuestion = ({ tool_call_id: _call, ...row }: QuestionsTable): Question => ({
  ...row,
  options: row.options === null ? null : fromJson<string[]>(row.options, []),
  multiple: Number(row.multiple) === 1,
  answer: row.answer === null ? null : fromJson<string | string[]>(row.answer, ""),
});

/**
 * Creates the question inside the caller's transaction (which holds the task's row and parks the task): the row,
 * the run's CUSTOM `question_asked` event and the `question.asked` event. Posts nothing else.
 */
export async function askQuestion(trx: Db, asking: AskingRun, input: AskHumanInput): Promise<Question> {
  const { task } = asking;
  const row: QuestionsTable = {
    id: newId(),
    workspace_id: task.workspace_id,
    task_id: task.id,
    run_id: asking.runId,
    agent_id: task.agent_id,
    issue_id: task.issue_id,
    tool_call_id: asking.toolCallId,
    question: input.question,
    options: input.options ? toJson(input.options) : null,
    multiple: input.options && input.multiple ? 1 : 0,
    status: "open",
    answer: null,
    answered_by: null,
    created_at: now(),
    answered_at: null,
  };
  await trx.insertInto("questions").values(row).execute();
  const question = toQuestion(row);
  await appendRunEvents(trx, asking.runId, [{ type: "CUSTOM", name: "question_asked", value: question }]);
  await appendEvent(trx, {
    workspaceId: task.workspace_id,
    type: "question.asked",
    entityType: "question",
    entityId: question.id,
    issueId: task.issue_id,
    actor: { type: "agent", id: task.agent_id },
    data: { task_id: task.id, run_id: asking.runId, agent_id: task.agent_id, question: question.question },
  });
  await tellQuestionAsked(trx, question);
  return question;
}

export async function getQuestion(db: Db, workspaceId: string, questionId: string): Promise<Question> {
  return toQuestion(await questionRow(db, workspaceId, questionId));
}

async function questionRow(db: Db, workspaceId: string, questionId: string): Promise<QuestionsTable> {
  return getInWorkspace(db, "questions", workspaceId, questionId, "Question");
}

/** Newest first. */
export async function listQuestions(
  db: Db,
  workspaceId: string,
  filter: { status?: QuestionStatus[] | undefined },
  page: Page,
): Promise<Question[]> {
  const rows = await listNewestInWorkspace(db, "questions", workspaceId, filter.status, page);
  return rows.map(toQuestion);
}

/** The answer as stored: checked against the options (400 otherwise), a single choice as a list when `multiple`. */
function acceptedAnswer(question: Question, answer: QuestionAnswer): string | string[] {
  const { options } = question;
  if (!options) {
    if (typeof answer !== "string") throw new HttpError(400, "This question takes a free-text answer, not a list");
    return answer;
  }
  const chosen = typeof answer === "string" ? [answer] : answer;
  const unknown = chosen.find((choice) => !options.includes(choice));
  if (unknown !== undefined) {
    throw new HttpError(400, `"${unknown.slice(0, 200)}" is not one of the options: ${options.join(", ")}`);
  }
  if (!question.multiple) {
    if (chosen.length !== 1) throw new HttpError(400, "This question takes exactly one of its options");
    return chosen[0]!;
  }
  if (new Set(chosen).size !== chosen.length) throw new HttpError(400, "Each option may be chosen once");
  return chosen;
}

/**
 * Any member answers once; a second answer (or one after the task ended) is a 409. Once the run waits for nothing
 * more, it resumes: an in-process run from its stored thread, a runner's task in a next assignment.
 */
export async function answerQuestion(
  db: Db,
  workspaceId: string,
  questionId: string,
  answer: QuestionAnswer,
  actor: Actor,
): Promise<Question> {
  return inWorkspace(db, workspaceId, async (trx) => {
    const before = toQuestion(await questionRow(trx, workspaceId, questionId));
    // The task row is the lock every writer of this run's waiting state takes: answers and decisions take turns.
    await trx
      .selectFrom("tasks")
      .select("id")
      .where("id", "=", before.task_id)
      .$if(isPostgres(trx), (query) => query.forUpdate())
      .execute();
    if (before.status !== "open") throw conflict("This question has already been answered or was cancelled");
    const accepted = acceptedAnswer(before, answer);
    const at = now();
    const answered = await trx
      .updateTable("questions")
      .set({ status: "answered", answer: toJson(accepted), answered_by: actor.id, answered_at: at })
      .where("id", "=", before.id)
      .where("status", "=", "open")
      .executeTakeFirst();
    if (Number(answered.numUpdatedRows) === 0) {
      throw conflict("This question has already been answered or was cancelled");
    }
    const question: Question = {
      ...before,
      status: "answered",
      answer: accepted,
      answered_by: actor.id,
      answered_at: at,
    };
    await appendRunEvents(trx, question.run_id, [{ type: "CUSTOM", name: "question_answered", value: question }]);
    await appendEvent(trx, {
      workspaceId,
      type: "question.answered",
      entityType: "question",
      entityId: question.id,
      issueId: question.issue_id,
      actor,
      data: { task_id: question.task_id, run_id: question.run_id, agent_id: question.agent_id },
    });
    await markSourceRead(trx, question.id);
    await resumeWhenSettled(trx, { taskId: question.task_id, runId: question.run_id, at });
    return question;
  });
}

/** The stored question of one ask_human call of a run, if it was asked. */
export async function questionFor(db: Db, runId: string, toolCallId: string): Promise<Question | undefined> {
  const row = await db
    .selectFrom("questions")
    .selectAll()
    .where("run_id", "=", runId)
    .where("tool_call_id", "=", toolCallId)
    .executeTakeFirst();
  return row && toQuestion(row);
}

/** What the model is told as the call's result: the answer itself, a list of choices as JSON. */
export const answerAsToolResult = (answer: string | string[]): string =>
  typeof answer === "string" ? answer : JSON.stringify(answer);

/** Inside a cancellation's transaction: the task's open questions end with it. Returns how many. */
export async function cancelOpenQuestions(trx: Db, taskId: string): Promise<number> {
  const cancelled = await trx
    .updateTable("questions")
    .set({ status: "cancelled" })
    .where("task_id", "=", taskId)
    .where("status", "=", "open")
    .returning("id")
    .execute();
  for (const { id } of cancelled) await markSourceRead(trx, id);
  return cancelled.length;
}

/** The arguments of a model's ask_human call, or why they do not do. */
export function parseAskHuman(
  argumentsText: string,
): { ok: true; input: AskHumanInput } | { ok: false; error: string } {
  let args: unknown;
  try {
    args = argumentsText.trim() === "" ? {} : JSON.parse(argumentsText);
  } catch {
    return { ok: false, error: `Arguments for ${ASK_HUMAN} are not valid JSON` };
  }
  const parsed = askHumanInput.safeParse(args);
  if (parsed.success) return { ok: true, input: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? `${issue.path.join(".")}: ` : "";
  return { ok: false, error: `Invalid arguments for ${ASK_HUMAN}: ${where}${issue?.message ?? "invalid"}` };
}

/**
 * The questions a runner's CLI asked in the task's run before `runId` and that were answered: a next assignment
 * resumes the CLI's session with them.
 */
export async function answersToResumeWith(db: Db, taskId: string, runId: string): Promise<Question[]> {
  const previous = await db
    .selectFrom("runs")
    .select("id")
    .where("task_id", "=", taskId)
    .where("id", "!=", runId)
    .orderBy("started_at", "desc")
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
  if (!previous) return [];
  const rows = await db
    .selectFrom("questions")
    .selectAll()
    .where("run_id", "=", previous.id)
    .where("status", "=", "answered")
    .where("tool_call_id", "is", null)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
  return rows.map(toQuestion);
}

/** The prompt's section telling a resumed CLI session what it asked and what the person answered. */
export function answeredSection(questions: Question[]): string[] {
  if (questions.length === 0) return [];
  const lines = ["## Your question was answered"];
  for (const question of questions) {
    lines.push(`You asked (${ASK_HUMAN}): ${question.question}`);
    lines.push(`The answer: ${question.answer === null ? "" : answerAsToolResult(question.answer)}`);
  }
  lines.push("Go on with your work from here, with this answer.", "");
  return lines;
}
