// The one small interface every model client implements: a stream of text deltas, tool calls and a finish.
import type { Config } from "../config.ts";

export interface ToolCallRecord {
  id: string;
  name: string;
  /** JSON text, as the model produced it. */
  arguments: string;
}

/** A message of the conversation in the runtime's own neutral shape. */
export type ChatMessage =
  | { role: "user"; content: string }
  | { role: "assistant"; content: string; toolCalls?: ToolCallRecord[] }
  | { role: "tool"; content: string; toolCallId: string };

export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface Usage {
  inputTokens?: number;
  outputTokens?: number;
}

export type ModelEvent =
  /** The response has started (headers in); from here on a silent stream counts as stalled. */
  | { type: "open" }
  | { type: "text"; delta: string }
  /** A new tool call; its arguments follow as `tool_args` events with the same id. */
  | { type: "tool_start"; id: string; name: string }
  | { type: "tool_args"; id: string; delta: string }
  | { type: "finish"; reason: string; usage?: Usage };

export interface ModelRequest {
  system: string;
  messages: ChatMessage[];
  tools: ToolSpec[];
  signal: AbortSignal;
}

export interface ModelClient {
  /** `provider/model`, as configured. */
  readonly id: string;
  stream(request: ModelRequest): AsyncIterable<ModelEvent>;
}

export type ModelSettings = Config["agent"];

/** A failure of the model side, with a stable code for run_error and a message fit to show the user. */
export class ModelError extends Error {
  constructor(
    readonly code: "model_not_configured" | "model_error" | "model_timeout" | "unknown_model_provider",
    message: string,
  ) {
    super(message);
    this.name = "ModelError";
  }
}

export function splitModelId(model: string): { provider: string; name: string } {
  const slash = model.indexOf("/");
  if (slash <= 0 || slash === model.length - 1) {
    throw new ModelError(
      "unknown_model_provider",
      `Model "${model}" must look like openai/<model>, ollama/<model> or anthropic/<model>`,
    );
  }
  return { provider: model.slice(0, slash), name: model.slice(slash + 1) };
}
