// The shapes of tasks, runs and approvals over HTTP (spec agents-at-work §1-3): validation, types and OpenAPI at once.
import { z } from "zod";
import { csvFilter, idField, text } from "../api/fields.ts";
import { pageQuery } from "../api/pagination.ts";
import { APPROVAL_STATUSES, QUESTION_STATUSES, RUN_STATUSES, TASK_STATUSES, TASK_TRIGGERS } from "../db/enums.ts";

export type { ApprovalStatus, QuestionStatus, RunStatus, TaskStatus, TaskTrigger } from "../db/enums.ts";

const taskStatusSchema = z.enum(TASK_STATUSES);
const approvalStatusSchema = z.enum(APPROVAL_STATUSES);

export const taskSchema = z
  .object({
    id: z.string(),
    workspace_id: z.string(),
    agent_id: z.string(),
    issue_id: z.string(),
    trigger: z.enum(TASK_TRIGGERS),
    comment_id: z.string().nullable().describe("The comment that triggered it (comment and mention triggers)"),
    status: taskStatusSchema,
    attempt: z.number().int().describe("Runs started so far"),
    max_attempts: z.number().int(),
    error: z.string().nullable(),
    run_id: z.string().nullable().describe("The current, or last, run"),
    waiting_for: z
      .enum(["runtime", "budget"])
      .nullable()
      .describe(
        "`runtime`: queued for an agent bound to runtimes of which none is online (runtimes.md §3); `budget`: its " +
          "agent or workspace is at its monthly budget (control.md §2)",
      ),
    created_at: z.string(),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
  })
  .meta({ id: "Task" });

export const runSchema = z
  .object({
    id: z.string(),
    task_id: z.string(),
    agent_id: z.string(),
    issue_id: z.string(),
    status: z.enum(RUN_STATUSES),
    model: z.string(),
    started_at: z.string(),
    finished_at: z.string().nullable(),
    usage: z.object({
      input_tokens: z.number().int().describe("Uncached input"),
      output_tokens: z.number().int(),
      cache_read_tokens: z.number().int(),
      cache_write_tokens: z.number().int(),
      cost_usd: z.number().nullable().describe("Null when no price is known for the model"),
    }),
    error: z.string().nullable(),
  })
  .meta({ id: "Run" });

export const approvalSchema = z
  .object({
    id: z.string(),
    workspace_id: z.string(),
    task_id: z.string(),
    run_id: z.string(),
    agent_id: z.string(),
    issue_id: z.string(),
    tool_name: z.string(),
    arguments: z.unknown().describe("The arguments the model gave the tool (parsed JSON, or the text if not JSON)"),
    status: approvalStatusSchema,
    decided_by: z.string().nullable().describe("The member who decided; null while pending or when the task ended"),
    comment: z.string().nullable(),
    created_at: z.string(),
    decided_at: z.string().nullable(),
  })
  .meta({ id: "Approval" });

/** At most this many characters in a free-text answer. */
export const ANSWER_MAX = 10_000;

export const questionSchema = z
  .object({
    id: z.string(),
    workspace_id: z.string(),
    task_id: z.string(),
    run_id: z.string(),
    agent_id: z.string(),
    issue_id: z.string(),
    question: z.string(),
    options: z.array(z.string()).nullable().describe("The choices offered; null for a free-text answer"),
    multiple: z.boolean().describe("Whether the answer is a list of the options (any number of them)"),
    status: z.enum(QUESTION_STATUSES),
    answer: z
      .union([z.string().nullable(), z.array(z.string())])
      .describe("One option or free text; a list of options when `multiple`; null while open"),
    answered_by: z.string().nullable().describe("The member who answered; null while open or when cancelled"),
    created_at: z.string(),
    answered_at: z.string().nullable(),
  })
  .meta({ id: "Question" });

export type Task = z.infer<typeof taskSchema>;
export type Run = z.infer<typeof runSchema>;
export type Approval = z.infer<typeof approvalSchema>;
export type Question = z.infer<typeof questionSchema>;

export const taskListQuery = pageQuery.extend({
  status: csvFilter(taskStatusSchema).describe(`Comma-separated, any of: ${TASK_STATUSES.join(", ")}`),
  agent_id: csvFilter(idField).describe("Comma-separated agent ids"),
  issue_id: csvFilter(idField).describe("Comma-separated issue ids"),
  latest: z
    .enum(["true", "false"])
    .transform((value) => value === "true")
    .optional()
    .describe(
      "true: only each agent's newest task on each issue (its open task, or how its last one ended), " +
        "so `latest=true&status=failed` lists the work that failed and was not tried again",
    ),
});
export type TaskListQuery = z.infer<typeof taskListQuery>;

export const approvalListQuery = pageQuery.extend({
  status: csvFilter(approvalStatusSchema).describe(`Comma-separated, any of: ${APPROVAL_STATUSES.join(", ")}`),
});

export const questionListQuery = pageQuery.extend({
  status: csvFilter(z.enum(QUESTION_STATUSES)).describe(`Comma-separated, any of: ${QUESTION_STATUSES.join(", ")}`),
});

export const answerQuestionBody = z.object({
  answer: z
    .union([text(ANSWER_MAX), z.array(text(ANSWER_MAX)).min(1).max(100)])
    .describe(
      "With options: one of them, or a list of them when the question allows several; else free text " +
        `(at most ${ANSWER_MAX} characters)`,
    ),
});
export type QuestionAnswer = z.infer<typeof answerQuestionBody>["answer"];

export const createTaskBody = z.object({ agent_id: idField.describe("An agent of this workspace") });

export const decideApprovalBody = z.object({
  decision: z.enum(["approve", "deny"]),
  comment: text(10_000).nullable().optional().describe("Told to the agent with the decision"),
});
export type ApprovalDecision = z.infer<typeof decideApprovalBody>;

export const taskParams = z.object({ ws_id: z.string(), task_id: z.string() });
export const runParams = z.object({ ws_id: z.string(), run_id: z.string() });
export const approvalParams = z.object({ ws_id: z.string(), approval_id: z.string() });
export const questionParams = z.object({ ws_id: z.string(), question_id: z.string() });
