// Gemini CLI, headless: `gemini -p … --output-format stream-json`. Sources: google-gemini/gemini-cli
// docs/cli/headless.md and packages/core/src/output/types.ts (JSONL events `init {session_id, model}`,
// `message {role, content, delta}`, `tool_use {tool_name, tool_id, parameters}`, `tool_result {tool_id, status,
// output, error}`, `error {severity, message}`, `result {status, error, stats: {input_tokens, output_tokens}}`),
// the CLI reference (`--resume <session id>`, `--yolo`; piped stdin is put before the `-p` text) and the
// configuration reference (`mcpServers.<name>.httpUrl` + `headers` for Streamable HTTP; a system settings file named
// by GEMINI_CLI_SYSTEM_SETTINGS_PATH overrides the user's and the project's; `context.fileName` names the brief file).
import type { RunEventWriter } from "../agui.ts";
import { JsonLinesParser } from "./json-lines-parser.ts";
import { MCP_SERVER_NAME, taskTokenHeaders, writeSecretJson } from "./secret-file.ts";
import { type Adapter, asNumber, asRecord, asString, type Launch, type LaunchInput } from "./types.ts";

/** `-p` needs a text; the brief itself comes on stdin, which Gemini CLI puts first. */
const PROMPT_POINTER = "Work on the task described above (it is also in AGENTS.md).";

export const geminiAdapter: Adapter = {
  resumes: true,
  briefFiles: ["AGENTS.md"],

  async launch(input: LaunchInput): Promise<Launch> {
    const settings = await writeSecretJson(input.secretsDir, "gemini-settings.json", {
      mcpServers: {
        [MCP_SERVER_NAME]: {
          httpUrl: input.mcpUrl,
          headers: taskTokenHeaders(input),
          trust: true,
        },
      },
      context: { fileName: ["AGENTS.md"] },
      // An untrusted folder drops workspace settings and forces confirmations no one is there to give.
      security: { folderTrust: { enabled: false } },
    });
    const args = ["--output-format", "stream-json", "--yolo"];
    if (input.resumeSessionId !== undefined) args.push("--resume", input.resumeSessionId);
    args.push("-p", PROMPT_POINTER);
    return { file: input.command, args, env: { GEMINI_CLI_SYSTEM_SETTINGS_PATH: settings } };
  },

  parser(events: RunEventWriter) {
    return new GeminiStreamParser(events);
  },
};

/** The assistant's text since its last tool call is the answer, once the stream ends. */
class GeminiStreamParser extends JsonLinesParser {
  protected read(event: Record<string, unknown>): void {
    switch (event.type) {
      case "init":
        this.sessionId = asString(event.session_id) ?? this.sessionId;
        break;
      case "message":
        if (event.role !== "assistant") break;
        this.events.text(asString(event.content) ?? "");
        this.answer += asString(event.content) ?? "";
        break;
      case "tool_use":
        this.answer = "";
        this.events.toolCall(asString(event.tool_id) ?? "", asString(event.tool_name) ?? "tool", event.parameters);
        break;
      case "tool_result": {
        const error = asString(asRecord(event.error).message);
        const output = event.status === "error" ? `Error: ${error ?? ""}` : (asString(event.output) ?? "");
        this.events.toolResult(asString(event.tool_id) ?? "", output);
        break;
      }
      case "error":
        this.events.custom("cli_warning", { severity: event.severity, message: event.message });
        break;
      case "result": {
        const stats = asRecord(event.stats);
        this.usage = { input_tokens: asNumber(stats.input_tokens), output_tokens: asNumber(stats.output_tokens) };
        if (event.status === "error") {
          this.error = asString(asRecord(event.error).message) ?? "Gemini CLI reported an error";
        }
        break;
      }
    }
  }
}
