// anthropic/…, through the official `@anthropic-ai/sdk` messages streaming.
import Anthropic from "@anthropic-ai/sdk";
import type {
  Tool as AnthropicTool,
  ContentBlockParam,
  MessageParam,
} from "@anthropic-ai/sdk/resources/messages/messages";
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

const MAX_TOKENS = 4096;

// No retries of its own, as for openai/… (openai-model.ts).
export const anthropicClient = pooledClients(
  (baseURL, apiKey, timeout) => new Anthropic({ baseURL, apiKey, maxRetries: 0, timeout }),
);

export class AnthropicModel implements ModelClient {
  constructor(
    readonly id: string,
    private readonly modelName: string,
    private readonly client: Anthropic,
  ) {}

  async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
    const stream = await this.client.messages
      .create(
        {
          model: this.modelName,
          max_tokens: MAX_TOKENS,
          ...(request.system ? { system: request.system } : {}),
          messages: toAnthropicMessages(request.messages),
          ...(request.tools.length > 0 ? { tools: request.tools.map(toAnthropicTool) } : {}),
          stream: true,
        },
        { signal: request.signal },
      )
      .catch((error: unknown) => {
        throw this.failure(error);
      });

    yield { type: "open" };
    let finishReason = "stop";
    const usage: Usage = {};
    const toolIdsByIndex = new Map<number, string>();
    try {
      for await (const event of stream) {
        switch (event.type) {
          case "content_block_delta":
            if (event.delta.type === "text_delta") yield { type: "text", delta: event.delta.text };
            else if (event.delta.type === "input_json_delta") {
              const id = toolIdsByIndex.get(event.index);
              if (id !== undefined && event.delta.partial_json) {
                yield { type: "tool_args", id, delta: event.delta.partial_json };
              }
            }
            break;
          case "content_block_start":
            if (event.content_block.type === "tool_use") {
              toolIdsByIndex.set(event.index, event.content_block.id);
              yield { type: "tool_start", id: event.content_block.id, name: event.content_block.name };
            }
            break;
          case "message_start": {
            // Anthropic counts cached input apart from input_tokens.
            const start = event.message.usage;
            usage.inputTokens = start.input_tokens;
            usage.cacheReadTokens = start.cache_read_input_tokens ?? 0;
            usage.cacheWriteTokens = start.cache_creation_input_tokens ?? 0;
            break;
          }
          case "message_delta":
            // Cumulative counts: the final ones win.
            usage.outputTokens = event.usage.output_tokens;
            if (typeof event.usage.input_tokens === "number") usage.inputTokens = event.usage.input_tokens;
            if (typeof event.usage.cache_read_input_tokens === "number") {
              usage.cacheReadTokens = event.usage.cache_read_input_tokens;
            }
            if (typeof event.usage.cache_creation_input_tokens === "number") {
              usage.cacheWriteTokens = event.usage.cache_creation_input_tokens;
            }
            if (event.delta.stop_reason) finishReason = event.delta.stop_reason;
            break;
        }
      }
    } catch (error) {
      throw this.failure(error);
    }
    yield { type: "finish", reason: finishReason, usage };
  }

  /** Failures name the model, never the key. */
  private failure(error: unknown): unknown {
    return describeSdkFailure(Anthropic, "ANTHROPIC_API_KEY", this.id, error);
  }
}

function toAnthropicTool(tool: ToolSpec) {
  return {
    name: tool.name,
    description: tool.description,
    input_schema: { type: "object", ...tool.parameters },
  } as AnthropicTool;
}

/** Tool results travel as user turns of tool_result blocks; consecutive turns of one role are merged. */
function toAnthropicMessages(messages: ChatMessage[]): MessageParam[] {
  const out: MessageParam[] = [];
  const push = (role: "user" | "assistant", blocks: ContentBlockParam[]) => {
    const last = out[out.length - 1];
    if (last && last.role === role && Array.isArray(last.content)) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const message of messages) {
    if (message.role === "user") {
      if (message.content) push("user", [{ type: "text", text: message.content }]);
    } else if (message.role === "tool") {
      push("user", [{ type: "tool_result", tool_use_id: message.toolCallId, content: message.content }]);
    } else {
      const blocks: ContentBlockParam[] = [];
      if (message.content) blocks.push({ type: "text", text: message.content });
      for (const call of message.toolCalls ?? []) {
        blocks.push({ type: "tool_use", id: call.id, name: call.name, input: parseArguments(call.arguments) });
      }
      if (blocks.length > 0) push("assistant", blocks);
    }
  }
  return out;
}

function parseArguments(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text || "{}");
    return value !== null && typeof value === "object" && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}
