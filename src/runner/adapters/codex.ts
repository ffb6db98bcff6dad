// Codex CLI, headless: `codex exec --json`. Sources: openai/codex codex-rs/exec/src/cli.rs (`--json` prints JSONL
// events; `--skip-git-repo-check`; the prompt is read from stdin when it is `-`; `codex exec resume <SESSION_ID>`),
// codex-rs/common/src/config_override.rs (`-c key=value`, the value parsed as TOML) and
// codex-rs/exec/src/exec_events.rs (the events: `thread.started {thread_id}`, `turn.started`,
// `turn.completed {usage: {input_tokens, cached_input_tokens, output_tokens}}`, `turn.failed {error}`,
// `item.started|updated|completed {item: {id, type, ...}}` with item types `agent_message {text}`, `reasoning {text}`,
// `command_execution {command, aggregated_output, exit_code, status}`, `file_change {changes, status}`,
// `mcp_tool_call {server, tool, arguments, result: {content, structured_content}, error, status}`, `web_search`,
// `todo_list`, `error`; and a top-level `error {message}`). MCP servers over Streamable HTTP are configured as
// `mcp_servers.<name>.url` with `bearer_token_env_var` (Codex refuses an inline bearer token in its config).
import type { RunEventWriter } from "../agui.ts";
import { TASK_TOKEN_VARIABLE } from "../env.ts";
import { JsonLinesParser } from "./json-lines-parser.ts";
import { MCP_SERVER_NAME } from "./secret-file.ts";
import { type Adapter, asNumber, asRecord, asString, contentText, type Launch, type LaunchInput } from "./types.ts";

export const codexAdapter: Adapter = {
  resumes: true,
  briefFiles: ["AGENTS.md"],

  async launch(input: LaunchInput): Promise<Launch> {
    const server = `mcp_servers.${MCP_SERVER_NAME}`;
    const args = [
      "exec",
      "--json",
      "--skip-git-repo-check",
      // Writes stay inside the task's working directory; commands may reach the network (git push, installs).
      "--sandbox",
      "workspace-write",
      "-c",
      "sandbox_workspace_write.network_access=true",
      "-c",
      `${server}.url=${JSON.stringify(input.mcpUrl)}`,
      "-c",
      `${server}.bearer_token_env_var=${JSON.stringify(TASK_TOKEN_VARIABLE)}`,
    ];
    if (input.resumeSessionId !== undefined) args.push("resume", input.resumeSessionId);
    args.push("-");
    return { file: input.command, args, env: {} };
  },

  parser(events: RunEventWriter) {
    return new CodexJsonParser(events);
  },
};

class CodexJsonParser extends JsonLinesParser {
  protected read(event: Record<string, unknown>): void {
    switch (event.type) {
      case "thread.started":
        this.sessionId = asString(event.thread_id) ?? this.sessionId;
        break;
      case "item.started":
        this.started(asRecord(event.item));
        break;
      case "item.completed":
        this.completed(asRecord(event.item));
        break;
      case "turn.completed": {
        const usage = asRecord(event.usage);
        // OpenAI counts cached input inside `input_tokens`.
        this.usage = {
          input_tokens: (this.usage?.input_tokens ?? 0) + asNumber(usage.input_tokens),
          output_tokens: (this.usage?.output_tokens ?? 0) + asNumber(usage.output_tokens),
        };
        break;
      }
      case "turn.failed":
        this.error = asString(asRecord(event.error).message) ?? "Codex reported a failed turn";
        break;
      case "error":
        this.error = asString(event.message) ?? "Codex reported an error";
        break;
    }
  }

  /** Tool-like items are shown from the moment they start. */
  private started(item: Record<string, unknown>): void {
    const call = toolCallOf(item);
    if (call !== undefined) this.events.toolCall(call.id, call.name, call.args);
  }

  private completed(item: Record<string, unknown>): void {
    const id = asString(item.id) ?? "";
    switch (item.type) {
      case "agent_message": {
        const text = asString(item.text) ?? "";
        this.events.text(text);
        this.events.endText();
        if (text !== "") this.answer = text;
        return;
      }
      case "reasoning":
        this.events.reasoning(asString(item.text) ?? "");
        return;
      case "todo_list":
        this.events.custom("todo_list", { items: item.items ?? [] });
        return;
      case "error":
        this.events.custom("cli_warning", { message: asString(item.message) ?? "" });
        return;
    }
    const call = toolCallOf(item);
    if (call === undefined) return;
    this.events.toolCall(call.id, call.name, call.args);
    this.events.toolResult(id, toolResultOf(item));
  }
}

function toolCallOf(item: Record<string, unknown>): { id: string; name: string; args: unknown } | undefined {
  const id = asString(item.id) ?? "";
  switch (item.type) {
    case "command_execution":
      return { id, name: "shell", args: { command: item.command } };
    case "mcp_tool_call":
      return {
        id,
        name: `mcp__${asString(item.server) ?? "server"}__${asString(item.tool) ?? "tool"}`,
        args: item.arguments,
      };
    case "file_change":
      return { id, name: "apply_patch", args: { changes: item.changes ?? [] } };
    case "web_search":
      return { id, name: "web_search", args: { query: item.query } };
    default:
      return undefined;
  }
}

function toolResultOf(item: Record<string, unknown>): string {
  switch (item.type) {
    case "command_execution": {
      const output = asString(item.aggregated_output) ?? "";
      const exitCode = item.exit_code;
      return typeof exitCode === "number" && exitCode !== 0 ? `${output}\n(exit code ${exitCode})` : output;
    }
    case "mcp_tool_call": {
      const error = asString(asRecord(item.error).message);
      if (error !== undefined) return `Error: ${error}`;
      const result = asRecord(item.result);
      return Array.isArray(result.content) && result.content.length > 0
        ? contentText(result.content)
        : contentText(result.structured_content);
    }
    case "file_change": {
      const changes = Array.isArray(item.changes) ? item.changes.map(asRecord) : [];
      const lines = changes.map((change) => `${asString(change.kind) ?? "update"} ${asString(change.path) ?? ""}`);
      return [`${asString(item.status) ?? "completed"}`, ...lines].join("\n");
    }
    default:
      return "";
  }
}
