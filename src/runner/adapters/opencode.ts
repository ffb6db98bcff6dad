// OpenCode, headless: `opencode run --format json`. Source: anomalyco/opencode packages/opencode/src/cli/cmd/run.ts
// (the message is read from stdin when piped; `--session <id>` continues a session; `--thinking` adds reasoning
// parts; `--dangerously-skip-permissions` approves what is not denied; with `--format json` each line is
// `{type, timestamp, sessionID, ...}`: `step_start {part}`, `text {part: {text}}` once a text part is finished,
// `reasoning {part: {text}}`, `tool_use {part: {callID, tool, state: {status: completed|error, input, output,
// error}}}`, `step_finish {part: {reason, cost, tokens: {input, output, reasoning, cache: {read, write}}}}`,
// `error {error: {name, data: {message}}}`, `done`). The MCP server goes in `OPENCODE_CONFIG_CONTENT`, OpenCode's
// inline configuration (`{"mcp": {name: {"type": "remote", url, headers}}}`), so nothing is written to the checkout.
import type { RunEventWriter } from "../agui.ts";
import { JsonLinesParser } from "./json-lines-parser.ts";
import { MCP_SERVER_NAME, taskTokenHeaders } from "./secret-file.ts";
import { type Adapter, asNumber, asRecord, asString, contentText, type Launch, type LaunchInput } from "./types.ts";

export const opencodeAdapter: Adapter = {
  resumes: true,
  briefFiles: ["AGENTS.md"],

  async launch(input: LaunchInput): Promise<Launch> {
    const args = ["run", "--format", "json", "--thinking", "--dangerously-skip-permissions"];
    if (input.resumeSessionId !== undefined) args.push("--session", input.resumeSessionId);
    const config = {
      mcp: {
        [MCP_SERVER_NAME]: {
          type: "remote",
          url: input.mcpUrl,
          headers: taskTokenHeaders(input),
          enabled: true,
        },
      },
    };
    return { file: input.command, args, env: { OPENCODE_CONFIG_CONTENT: JSON.stringify(config) } };
  },

  parser(events: RunEventWriter) {
    return new OpencodeJsonParser(events);
  },
};

class OpencodeJsonParser extends JsonLinesParser {
  private stepText = "";
  private cost = 0;

  protected read(event: Record<string, unknown>): void {
    this.sessionId = asString(event.sessionID) ?? this.sessionId;
    const part = asRecord(event.part);
    switch (event.type) {
      case "step_start":
        this.stepText = "";
        break;
      case "text": {
        const text = asString(part.text) ?? "";
        this.events.text(text);
        this.events.endText();
        this.stepText += text;
        break;
      }
      case "reasoning":
        this.events.reasoning(asString(part.text) ?? "");
        break;
      case "tool_use":
        this.toolUse(part);
        break;
      case "step_finish":
        this.stepFinish(part);
        break;
      case "error": {
        const error = asRecord(event.error);
        this.error = asString(asRecord(error.data).message) ?? asString(error.name) ?? "OpenCode reported an error";
        break;
      }
    }
  }

  protected finalAnswer(): string {
    return this.answer || this.stepText;
  }

  private toolUse(part: Record<string, unknown>): void {
    const id = asString(part.callID) ?? asString(part.id) ?? "";
    const state = asRecord(part.state);
    this.events.toolCall(id, asString(part.tool) ?? "tool", state.input);
    const result = state.status === "error" ? `Error: ${asString(state.error) ?? ""}` : contentText(state.output);
    this.events.toolResult(id, result);
  }

  /** A step that did not end in tool calls is the answer; usage and cost add up over the steps. */
  private stepFinish(part: Record<string, unknown>): void {
    const tokens = asRecord(part.tokens);
    const cache = asRecord(tokens.cache);
    this.usage = {
      input_tokens:
        (this.usage?.input_tokens ?? 0) + asNumber(tokens.input) + asNumber(cache.read) + asNumber(cache.write),
      output_tokens: (this.usage?.output_tokens ?? 0) + asNumber(tokens.output) + asNumber(tokens.reasoning),
    };
    this.cost += asNumber(part.cost);
    if (this.cost > 0) this.usage.cost_usd = this.cost;
    if (part.reason !== "tool-calls" && this.stepText !== "") this.answer = this.stepText;
  }
}
