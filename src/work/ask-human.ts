// The ask_human tool in every agent run (spec control.md §3). In a task run the call never runs: the run's gate holds
// it until a person answers, and the answer is its result. A runner's CLI calls it through MCP with its task token,
// which parks the task. Anywhere else (a chat through /agui, another agent asking through ask_<agent>) nobody waits
// for the run to resume, so the call is answered with what to do instead.
import { z } from "zod";
import type { RunAddition } from "../agents/run-additions.ts";
import type { ToolGate } from "../agents/run-types.ts";
import type { Db } from "../db/index.ts";
import type { JsonSchemaObject, Tool, ToolContext, ToolSource } from "../tools/registry.ts";
import { askFromRunner } from "./outcomes.ts";
import {
  ASK_HUMAN,
  ASK_HUMAN_DESCRIPTION,
  type AskHumanInput,
  answerAsToolResult,
  askHumanInput,
  parseAskHuman,
  questionFor,
} from "./questions.ts";

const { $schema: _dialect, ...inputSchema } = z.toJSONSchema(askHumanInput, { io: "input" });

function askHumanTool(run: (input: AskHumanInput, ctx: ToolContext) => Promise<unknown>): Tool {
  return {
    name: ASK_HUMAN,
    description: ASK_HUMAN_DESCRIPTION,
    inputSchema: inputSchema as JsonSchemaObject,
    input: askHumanInput as unknown as z.ZodType<Record<string, unknown>>,
    run: (args, ctx) => run(args as AskHumanInput, ctx),
  };
}

const NOBODY_TO_ASK =
  "Nobody can be asked from here: ask_human works while you work on an issue. If a person is talking with you, " +
  "ask them directly in your reply; otherwise say in your answer what you would need to know.";

/** The tool as every run of a platform agent has it; a task run's gate answers it before it could run. */
const unanswerable = askHumanTool(async () => {
  throw new Error(NOBODY_TO_ASK);
});

/** Adds ask_human to every run of a platform agent. */
export const askHumanInRuns: RunAddition = { forAgent: async () => ({ tools: [unanswerable] }) };

/**
 * The gate of a task run: an ask_human call waits for its question's answer (held until then), and is answered
 * with it; a call with unusable arguments is answered with the reason, so the model can ask again.
 */
export function questionGate(db: Db, runId: string): ToolGate {
  return async (call) => {
    if (call.name !== ASK_HUMAN) return { action: "run" };
    const parsed = parseAskHuman(call.arguments);
    if (!parsed.ok) return { action: "answer", content: `Error: ${parsed.error}` };
    const question = await questionFor(db, runId, call.id);
    if (!question || question.status === "open") return { action: "hold" };
    if (question.status === "answered" && question.answer !== null) {
      return { action: "answer", content: answerAsToolResult(question.answer) };
    }
    return { action: "answer", content: "The question was withdrawn before anyone answered it." };
  };
}

const RUNNER_ASKED =
  "Your question was sent to the people of this workspace. Stop now and end your turn without doing anything " +
  "else: this session is paused and resumes with their answer as your next message.";

/**
 * ask_human for a runner's agent CLI (a task token's caller, through MCP): the question is asked and the task parked;
 * the CLI is told to stop, and the runner ends it.
 */
export function runnerAskHumanSource(db: Db): ToolSource {
  const tool = askHumanTool(async (input, ctx) => {
    const question = await askFromRunner(db, ctx.taskId!, input);
    return { question_id: question.id, status: question.status, next: RUNNER_ASKED };
  });
  return {
    list: (ctx) => (ctx.taskId ? [tool] : []),
    find: (name, ctx) => (ctx.taskId && name === ASK_HUMAN ? tool : undefined),
  };
}
