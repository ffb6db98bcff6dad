// Claude Code, headless. Sources: the headless-mode docs (docs.claude.com/en/docs/claude-code/headless: `-p`,
// `--output-format stream-json` which in print mode requires `--verbose`, `--resume <session id>`, `--mcp-config`
// with a JSON file of `{"mcpServers": {name: {"type": "http", "url", "headers"}}}`), and the Agent SDK's message
// types (SDKSystemMessage init with `session_id`; SDKAssistantMessage and SDKUserMessage wrapping Anthropic messages
// whose content blocks are `text`, `thinking`, `tool_use` and `tool_result`; SDKResultMessage with `subtype`,
// `is_error`, `result`, `usage` and `total_cost_usd`). The prompt goes on stdin: `--mcp-config` takes several
// values, so a prompt after it would be read as one more config.
import type { RunEventWriter } from "../agui.ts";
import { JsonLinesParser } from "./json-lines-parser.ts";
import { MCP_SERVER_NAME, taskTokenHeaders, writeSecretJson } from "./secret-file.ts";
import {
  type Adapter,
  asNumber,
  asRecord,
  asString,
  contentText,
  type Launch,
  type LaunchInput,
  type Usage,
} from "./types.ts";

export const claudeAdapter: Adapter = {
  resumes: true,
  briefFiles: ["AGENTS.md", "CLAUDE.md"],

  async launch(input: LaunchInput): Promise<Launch> {
    const mcpConfig = await writeSecretJson(input.secretsDir, "claude-mcp.json", {
      mcpServers: {
        [MCP_SERVER_NAME]: {
          type: "http",
          url: input.mcpUrl,
          headers: taskTokenHeaders(input),
        },
      },
    });
    // No terminal to ask in: the task's own working directory is what it may change.
    const args = ["-p", "--output-format", "stream-json", "--verbose", "--permission-mode", "bypassPermissions"];
    if (input.resumeSessionId !== undefined) args.push("--resume", input.resumeSessionId);
    args.push("--mcp-config", mcpConfig);
    return { file: input.command, args, env: {} };
  },

  parser(events: RunEventWriter) {
    return new ClaudeStreamParser(events);
  },
};

/** The answer is the final `result`'s text, else the last assistant message's. */
class ClaudeStreamParser extends JsonLinesParser {
  protected read(message: Record<string, unknown>): void {
    const sessionId = asString(message.session_id);
    if (sessionId !== undefined && sessionId !== "") this.sessionId = sessionId;
    switch (message.type) {
      case "assistant":
        this.assistant(asRecord(message.message));
        break;
      case "user":
        this.toolResults(asRecord(message.message));
        break;
      case "result": {
        const text = asString(message.result) ?? "";
        if (text !== "") this.answer = text;
        this.usage = claudeUsage(asRecord(message.usage), message.total_cost_usd);
        if (message.is_error === true) {
          this.error = text || `Claude Code ended with ${asString(message.subtype) ?? "an error"}`;
        }
        break;
      }
    }
  }

  private assistant(message: Record<string, unknown>): void {
    const content = Array.isArray(message.content) ? message.content : [];
    let text = "";
    for (const raw of content) {
      const block = asRecord(raw);
      if (block.type === "text") {
        const delta = asString(block.text) ?? "";
        text += delta;
        this.events.text(delta);
      } else if (block.type === "thinking") {
        this.events.reasoning(asString(block.thinking) ?? "");
      } else if (block.type === "tool_use") {
        this.events.toolCall(asString(block.id) ?? "", asString(block.name) ?? "tool", block.input);
      }
    }
    // Each assistant line is a whole message: the next one is a new message.
    this.events.endText();
    if (text !== "") this.answer = text;
  }

  private toolResults(message: Record<string, unknown>): void {
    if (!Array.isArray(message.content)) return;
    for (const raw of message.content) {
      const block = asRecord(raw);
      if (block.type !== "tool_result") continue;
      this.events.toolResult(asString(block.tool_use_id) ?? "", contentText(block.content));
    }
  }
}

/** Anthropic counts cached input apart from `input_tokens`; a Claude Code turn is mostly cached input. */
function claudeUsage(usage: Record<string, unknown>, cost: unknown): Usage {
  const total: Usage = {
    input_tokens:
      asNumber(usage.input_tokens) +
      asNumber(usage.cache_creation_input_tokens) +
      asNumber(usage.cache_read_input_tokens),
    output_tokens: asNumber(usage.output_tokens),
  };
  if (typeof cost === "number" && Number.isFinite(cost)) total.cost_usd = cost;
  return total;
}
