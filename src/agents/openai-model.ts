// openai/…, ollama/… and every OpenAI-compatible server, through the official `openai` SDK's chat completions.
import { randomUUID } from "node:crypto";
import OpenAI from "openai";
import type { ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import {
  type ChatMessage,
  describeSdkFailure,
  type ModelClient,
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
        throw describeSdkFailure(OpenAI, "OPENAI_API_KEY", this.id, error);
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
      throw describeSdkFailure(OpenAI, "OPENAI_API_KEY", this.id, error);
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
