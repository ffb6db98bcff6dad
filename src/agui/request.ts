// The two request shapes of POST /agui (the simple `{threadId, runId, state:{messages}}` and the official
// RunAgentInput), camelCase or snake_case, normalised into one run input. A bad body is a 422 before any stream.
import { z } from "zod";
import type { ToolCallRecord, ToolSpec } from "../agents/model.ts";
import type { ThreadMessage } from "../agents/threads.ts";
import { newId } from "../db/values.ts";
import { ValidationError, validationIssue } from "../http/errors.ts";

/** `?dialect=` of POST /agui: the official UPPER_SNAKE event names, or the same in lower case. */
export type EventNaming = "lowercase" | "ag-ui";

interface AguiRunInput {
  threadId: string;
  runId: string;
  /** Official clients send a top-level `messages` array and get the official event names; others lower case. */
  dialect: EventNaming;
  messages: ThreadMessage[];
  /** System or developer messages and the client's context, for this run's instructions. */
  extraInstructions: string | undefined;
  clientTools: ToolSpec[];
  agentId: string | undefined;
}

const SNAKE_TO_CAMEL: Record<string, string> = {
  thread_id: "threadId",
  run_id: "runId",
  parent_run_id: "parentRunId",
  forwarded_props: "forwardedProps",
  tool_calls: "toolCalls",
  tool_call_id: "toolCallId",
  agent_id: "agentId",
};

/** Renames the snake_case keys we know; a camelCase key sent as well wins. */
function camelKeys(value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const camel = SNAKE_TO_CAMEL[key];
    if (camel === undefined) out[key] = item;
    else if (!(camel in value)) out[camel] = item;
  }
  return out;
}

const contentPart = z.looseObject({ type: z.string(), text: z.string().optional() });

const toolCall = z.object({
  id: z.string().min(1),
  type: z.literal("function").optional(),
  function: z.object({ name: z.string().min(1), arguments: z.string().default("") }),
});

const message = z.preprocess(
  camelKeys,
  z.looseObject({
    id: z.string().min(1).optional(),
    role: z.string().min(1),
    content: z.union([z.string(), z.array(contentPart), z.null()]).optional(),
    toolCalls: z.array(toolCall).optional(),
    toolCallId: z.string().min(1).optional(),
  }),
);

const clientTool = z.object({
  name: z.string().min(1),
  description: z.string().default(""),
  parameters: z.record(z.string(), z.unknown()).optional(),
});

const body = z.preprocess(
  camelKeys,
  z.looseObject({
    threadId: z.string().min(1),
    runId: z.string().min(1).optional(),
    messages: z.array(message).optional(),
    state: z.unknown().optional(),
    tools: z.array(clientTool).optional(),
    context: z.array(z.object({ description: z.string(), value: z.string() })).optional(),
    forwardedProps: z.preprocess(camelKeys, z.looseObject({ agentId: z.string().min(1).optional() })).optional(),
  }),
);

const stateMessages = z.looseObject({ messages: z.array(message) });

type ParsedMessage = z.infer<typeof message>;

export function parseRunInput(raw: unknown, dialectOverride: EventNaming | undefined): AguiRunInput {
  const parsed = body.safeParse(raw);
  if (!parsed.success) throw validationError(parsed.error, []);
  const input = parsed.data;
  let messages: ParsedMessage[];
  if (input.messages !== undefined) messages = input.messages;
  else {
    const state = stateMessages.safeParse(input.state);
    if (!state.success) throw validationError(state.error, ["state"]);
    messages = state.data.messages;
  }

  const instructions: string[] = [];
  const threadMessages: ThreadMessage[] = [];
  for (const [index, each] of messages.entries()) {
    const id = each.id ?? newId();
    const content = textOf(each.content);
    switch (each.role) {
      case "user":
        threadMessages.push({ id, message: { role: "user", content } });
        break;
      case "assistant": {
        const toolCalls: ToolCallRecord[] | undefined = each.toolCalls?.map((call) => ({
          id: call.id,
          name: call.function.name,
          arguments: call.function.arguments,
        }));
        threadMessages.push({
          id,
          message: toolCalls?.length ? { role: "assistant", content, toolCalls } : { role: "assistant", content },
        });
        break;
      }
      case "tool":
        if (!each.toolCallId) {
          const where = input.messages !== undefined ? ["messages"] : ["state", "messages"];
          throw new ValidationError([
            { type: "missing", loc: ["body", ...where, index, "toolCallId"], msg: "A tool message needs toolCallId" },
          ]);
        }
        threadMessages.push({ id, message: { role: "tool", content, toolCallId: each.toolCallId } });
        break;
      case "system":
      case "developer":
        if (content) instructions.push(content);
        break;
      // Other roles (activity, reasoning…) are for the client's own display.
    }
  }
  for (const item of input.context ?? []) instructions.push(`${item.description}: ${item.value}`);

  return {
    threadId: input.threadId,
    runId: input.runId ?? newId(),
    dialect: dialectOverride ?? (Array.isArray(input.messages) ? "ag-ui" : "lowercase"),
    messages: threadMessages,
    extraInstructions: instructions.length > 0 ? instructions.join("\n\n") : undefined,
    clientTools: (input.tools ?? []).map((tool) => ({
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters ?? { type: "object", properties: {} },
    })),
    agentId: input.forwardedProps?.agentId,
  };
}

function textOf(content: ParsedMessage["content"]): string {
  if (typeof content === "string") return content;
  if (!content) return "";
  return content
    .filter((part) => part.type === "text" && typeof part.text === "string")
    .map((part) => part.text)
    .join("");
}

function validationError(error: z.ZodError, prefix: (string | number)[]): ValidationError {
  return new ValidationError(
    error.issues.map((issue) =>
      validationIssue(
        issue.code,
        ["body", ...prefix, ...issue.path.map((part) => (typeof part === "symbol" ? String(part) : part))],
        issue.message,
      ),
    ),
  );
}
