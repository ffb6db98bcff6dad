// openai/…, ollama/… and every OpenAI-compatible server, through the official `openai` SDK's chat completions.
import { randomUUID } from "node:crypto";
import OpenAI from "openai";
import type { ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import {
  type ChatMessage,
  type ModelClient,
  ModelError,
  type ModelEvent,
  type ModelRequest,
  type Usage,
} from "./model.ts";
import { fetchInPieces } from "./sse-pieces.ts";

/** One SDK client per endpoint and key, so connections are pooled across runs. */
const clients = new Map<string, OpenAI>();

export function openaiClient(baseURL: string | undefined, apiKey: string, timeoutMs: number): OpenAI {
  const key = `${baseURL ?? ""}\n${apiKey}\n${timeoutMs}`;
  let client = clients.get(key);
  if (!client) {
    // One retry on a connection error, 429 or 5xx; `timeout` bounds each attempt up to the response headers,
    // the runtime's watchdog the silences of the stream after them.
    client = new OpenAI({ baseURL, apiKey, maxRetries: 1, timeout: timeoutMs, fetch: fetchInPieces });
    clients.set(key, client);
  }
  return client;
}

export class OpenAIChatModel implements ModelClient {
  constructor(
    readonly id: string,
    private readonly modelName: string,
    private readonly client: OpenAI,
  ) {}

  async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
    const stream = await this.client.chat.completions
      .create(
        {
          model: this.modelName,
          messages: toOpenAIMessages(request.system, request.messages),
          ...(request.tools.length > 0 ? { tools: request.tools.map(toOpenAITool) } : {}),
          stream: true,
          stream_options: { include_usage: true },
        },
        { signal: request.signal },
      )
      .catch((error: unknown) => {
        throw describeFailure(this.id, error);
      });

    yield { type: "open" };
    let finishReason = "stop";
    let usage: Usage | undefined;
    const idsByIndex: string[] = [];
    try {
      for await (const chunk of stream) {
        const choice = chunk.choices[0];
        if (choice !== undefined) {
          const delta = choice.delta;
          if (delta.content) yield { type: "text", delta: delta.content };
          if (delta.tool_calls) {
            for (const call of delta.tool_calls) {
              let id = idsByIndex[call.index];
              if (id === undefined) {
                id = call.id || `call_${randomUUID()}`;
                idsByIndex[call.index] = id;
                yield { type: "tool_start", id, name: call.function?.name ?? "" };
              }
              const args = call.function?.arguments;
              if (args) yield { type: "tool_args", id, delta: args };
            }
          }
          if (choice.finish_reason) finishReason = choice.finish_reason;
        }
        if (chunk.usage) {
          usage = { inputTokens: chunk.usage.prompt_tokens, outputTokens: chunk.usage.completion_tokens };
        }
      }
    } catch (error) {
      throw describeFailure(this.id, error);
    }
    yield { type: "finish", reason: finishReason, usage };
  }
}

function toOpenAITool(tool: { name: string; description: string; parameters: Record<string, unknown> }) {
  return {
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  } satisfies ChatCompletionTool;
}

function toOpenAIMessages(system: string, messages: ChatMessage[]): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  if (system) out.push({ role: "system", content: system });
  for (const message of messages) {
    if (message.role === "assistant") {
      const toolCalls = message.toolCalls?.map((call) => ({
        id: call.id,
        type: "function" as const,
        function: { name: call.name, arguments: call.arguments || "{}" },
      }));
      out.push(
        toolCalls?.length
          ? { role: "assistant", content: message.content || null, tool_calls: toolCalls }
          : { role: "assistant", content: message.content },
      );
    } else if (message.role === "tool") {
      out.push({ role: "tool", content: message.content, tool_call_id: message.toolCallId });
    } else {
      out.push({ role: "user", content: message.content });
    }
  }
  return out;
}

/** SDK errors carry the provider's message; ours names the model and never the key. */
function describeFailure(modelId: string, error: unknown): unknown {
  if (error instanceof OpenAI.APIUserAbortError) return error;
  if (error instanceof OpenAI.APIConnectionTimeoutError) {
    return new ModelError("model_timeout", `The model ${modelId} did not answer in time`);
  }
  if (error instanceof OpenAI.AuthenticationError) {
    return new ModelError("model_error", `The model ${modelId} rejected the API key (401): check OPENAI_API_KEY`);
  }
  if (error instanceof OpenAI.APIError) {
    const status = error.status === undefined ? "" : ` (${error.status})`;
    return new ModelError("model_error", `The model ${modelId} failed${status}: ${error.message}`);
  }
  if (error instanceof SyntaxError) {
    return new ModelError("model_error", `The model ${modelId} sent a malformed stream chunk`);
  }
  if (error instanceof Error && error.name === "AbortError") return error;
  const detail = error instanceof Error ? error.message : String(error);
  return new ModelError("model_error", `The model ${modelId} failed: ${detail}`);
}
