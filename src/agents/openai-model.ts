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
  pooledClients,
  type ToolSpec,
  type Usage,
} from "./model.ts";
import { fetchInPieces } from "./sse-pieces.ts";

// No retries of its own, so a silent model fails after one `timeout` (a task's failed run is retried by the work queue).
// `timeout` bounds the request up to the response headers, the runtime's watchdog the silences of the stream after them.
export const openaiClient = pooledClients(
  (baseURL, apiKey, timeout) => new OpenAI({ baseURL, apiKey, maxRetries: 0, timeout, fetch: fetchInPieces }),
);

export class OpenAIChatModel implements ModelClient {
  constructor(
    readonly id: string,
    private readonly modelName: string,
    private readonly client: OpenAI,
  ) {}

  stream(request: ModelRequest): AsyncIterable<ModelEvent> {
    return { [Symbol.asyncIterator]: () => new ChunkEvents(this, request) };
  }

  /** Starts the SDK's stream of chat-completion chunks; failures name the model, never the key. */
  open(request: ModelRequest) {
    return this.client.chat.completions
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
        throw this.failure(error);
      });
  }

  failure(error: unknown): unknown {
    return describeSdkFailure(OpenAI, "OPENAI_API_KEY", this.id, error);
  }
}

type Chunks = AsyncIterator<OpenAI.Chat.Completions.ChatCompletionChunk>;

/**
 * The model events of one stream, as a plain iterator rather than an async generator: a text chunk, nearly every
 * chunk of a reply, becomes its event in one step, where a generator would add several promise hops per token.
 */
class ChunkEvents implements AsyncIterator<ModelEvent> {
  private chunks: Chunks | undefined;
  private readonly queued: ModelEvent[] = [];
  private readonly idsByIndex: string[] = [];
  private finishReason = "stop";
  private usage: Usage | undefined;
  private done = false;

  constructor(
    private readonly model: OpenAIChatModel,
    private readonly request: ModelRequest,
  ) {}

  async next(): Promise<IteratorResult<ModelEvent>> {
    const queued = this.queued.shift();
    if (queued) return { value: queued, done: false };
    if (this.done) return { value: undefined, done: true };
    if (!this.chunks) {
      this.chunks = (await this.model.open(this.request))[Symbol.asyncIterator]();
      return { value: { type: "open" }, done: false };
    }
    for (;;) {
      let result: IteratorResult<OpenAI.Chat.Completions.ChatCompletionChunk>;
      try {
        result = await this.chunks.next();
      } catch (error) {
        throw this.model.failure(error);
      }
      if (result.done) {
        this.done = true;
        return { value: { type: "finish", reason: this.finishReason, usage: this.usage }, done: false };
      }
      this.read(result.value);
      const event = this.queued.shift();
      if (event) return { value: event, done: false };
    }
  }

  async return(): Promise<IteratorResult<ModelEvent>> {
    this.done = true;
    await this.chunks?.return?.();
    return { value: undefined, done: true };
  }

  private read(chunk: OpenAI.Chat.Completions.ChatCompletionChunk): void {
    const choice = chunk.choices[0];
    if (choice !== undefined) {
      const delta = choice.delta;
      if (delta.content) this.queued.push({ type: "text", delta: delta.content });
      for (const call of delta.tool_calls ?? []) {
        let id = this.idsByIndex[call.index];
        if (id === undefined) {
          id = call.id || `call_${randomUUID()}`;
          this.idsByIndex[call.index] = id;
          this.queued.push({ type: "tool_start", id, name: call.function?.name ?? "" });
        }
        const args = call.function?.arguments;
        if (args) this.queued.push({ type: "tool_args", id, delta: args });
      }
      if (choice.finish_reason) this.finishReason = choice.finish_reason;
    }
    if (chunk.usage) {
      // OpenAI counts cached input inside prompt_tokens.
      const cached = chunk.usage.prompt_tokens_details?.cached_tokens ?? 0;
      this.usage = {
        inputTokens: chunk.usage.prompt_tokens - cached,
        outputTokens: chunk.usage.completion_tokens,
        cacheReadTokens: cached,
      };
    }
  }
}

function toOpenAITool(tool: ToolSpec) {
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
