// OpenCode and Gemini CLI have no fake executable here: their parsers read lines in the shapes their sources print
// (opencode packages/opencode/src/cli/cmd/run.ts; gemini-cli packages/core/src/output/types.ts).
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EventSchema } from "@ag-ui/core/schemas";
import { afterAll, describe, expect, it } from "vitest";
import { geminiAdapter } from "../../src/runner/adapters/gemini.ts";
import { opencodeAdapter } from "../../src/runner/adapters/opencode.ts";
import type { Adapter, LaunchInput } from "../../src/runner/adapters/types.ts";
import { type OfficialEvent, RunEventWriter } from "../../src/runner/agui.ts";

const secretsDir = mkdtempSync(join(tmpdir(), "runner-adapters-"));
afterAll(() => rmSync(secretsDir, { recursive: true, force: true }));

const input: LaunchInput = {
  command: "/usr/local/bin/cli",
  workDir: "/tmp/work/t1",
  secretsDir,
  prompt: "# ENG-1",
  mcpUrl: "http://127.0.0.1:8000/mcp",
  taskToken: "apt_secret",
};

function parse(adapter: Adapter, lines: object[]) {
  const events: OfficialEvent[] = [];
  const parser = adapter.parser(new RunEventWriter((event) => events.push(event)));
  for (const line of lines) parser.line(JSON.stringify(line));
  parser.line("a banner line that is not JSON");
  const outcome = parser.finish();
  for (const event of events) expect(EventSchema.safeParse(event).success, JSON.stringify(event)).toBe(true);
  return { events, outcome, sessionId: parser.sessionId };
}

describe("the OpenCode adapter", () => {
  it("starts `opencode run --format json` with the platform's MCP server in its inline config, resuming with --session", async () => {
    const launch = await opencodeAdapter.launch({ ...input, resumeSessionId: "ses_abc" });
    expect(launch.args).toEqual([
      "run",
      "--format",
      "json",
      "--thinking",
      "--dangerously-skip-permissions",
      "--session",
      "ses_abc",
    ]);
    expect(JSON.parse(launch.env.OPENCODE_CONFIG_CONTENT ?? "")).toEqual({
      mcp: {
        platform: {
          type: "remote",
          url: input.mcpUrl,
          headers: { Authorization: "Bearer apt_secret" },
          enabled: true,
        },
      },
    });
  });

  it("maps steps, text, reasoning and tool parts to AG-UI events; the last step's text is the answer", () => {
    const session = { sessionID: "ses_7f1", timestamp: 1768191337567 };
    const part = { sessionID: "ses_7f1", messageID: "msg_1" };
    const { events, outcome, sessionId } = parse(opencodeAdapter, [
      { type: "step_start", ...session, part: { ...part, id: "prt_1", type: "step-start", snapshot: "4b825dc" } },
      { type: "reasoning", ...session, part: { ...part, id: "prt_2", type: "reasoning", text: "Check the issue" } },
      {
        type: "tool_use",
        ...session,
        part: {
          ...part,
          id: "prt_3",
          type: "tool",
          callID: "call_1",
          tool: "platform_get_issue",
          state: { status: "completed", input: { issue: "ENG-1" }, output: "ENG-1: Fix login", title: "", time: {} },
        },
      },
      {
        type: "tool_use",
        ...session,
        part: {
          ...part,
          id: "prt_4",
          type: "tool",
          callID: "call_2",
          tool: "bash",
          state: { status: "error", input: { command: "npm test" }, error: "exit 1", time: {} },
        },
      },
      {
        type: "step_finish",
        ...session,
        part: {
          ...part,
          id: "prt_5",
          type: "step-finish",
          reason: "tool-calls",
          cost: 0.002,
          tokens: { input: 100, output: 20, reasoning: 5, cache: { read: 1000, write: 0 } },
        },
      },
      { type: "step_start", ...session, part: { ...part, id: "prt_6", type: "step-start" } },
      { type: "text", ...session, part: { ...part, id: "prt_7", type: "text", text: "Fixed the login.", time: {} } },
      {
        type: "step_finish",
        ...session,
        part: {
          ...part,
          id: "prt_8",
          type: "step-finish",
          reason: "stop",
          cost: 0.001,
          tokens: { input: 50, output: 10, reasoning: 0, cache: { read: 1100, write: 0 } },
        },
      },
      { type: "done", ...session, reason: "idle", rejected: [] },
    ]);
    expect(sessionId).toBe("ses_7f1");
    expect(events.map((event) => event.type)).toEqual([
      "REASONING_START",
      "REASONING_MESSAGE_START",
      "REASONING_MESSAGE_CONTENT",
      "REASONING_MESSAGE_END",
      "REASONING_END",
      "TOOL_CALL_START",
      "TOOL_CALL_ARGS",
      "TOOL_CALL_END",
      "TOOL_CALL_RESULT",
      "TOOL_CALL_START",
      "TOOL_CALL_ARGS",
      "TOOL_CALL_END",
      "TOOL_CALL_RESULT",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_END",
    ]);
    expect(events[8]).toMatchObject({ toolCallId: "call_1", content: "ENG-1: Fix login" });
    expect(events[12]).toMatchObject({ toolCallId: "call_2", content: "Error: exit 1" });
    expect(outcome).toEqual({
      sessionId: "ses_7f1",
      answer: "Fixed the login.",
      usage: { input_tokens: 100 + 1000 + 50 + 1100, output_tokens: 25 + 10, cost_usd: 0.003 },
    });
  });

  it("reports OpenCode's error event as the run's error", () => {
    const { outcome } = parse(opencodeAdapter, [
      { type: "error", sessionID: "ses_1", error: { name: "APIError", data: { message: "Rate limited" } } },
    ]);
    expect(outcome.error).toBe("Rate limited");
  });
});

describe("the Gemini CLI adapter", () => {
  it("starts `gemini --output-format stream-json` with the MCP server in a private system settings file, resuming with --resume", async () => {
    const launch = await geminiAdapter.launch({ ...input, resumeSessionId: "c25acda3" });
    expect(launch.args).toEqual([
      "--output-format",
      "stream-json",
      "--yolo",
      "--resume",
      "c25acda3",
      "-p",
      expect.stringContaining("AGENTS.md"),
    ]);
    const settingsFile = launch.env.GEMINI_CLI_SYSTEM_SETTINGS_PATH ?? "";
    expect(statSync(settingsFile).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(settingsFile, "utf8")).mcpServers).toEqual({
      platform: { httpUrl: input.mcpUrl, headers: { Authorization: "Bearer apt_secret" }, trust: true },
    });
  });

  it("maps message chunks, tool uses and results to AG-UI events; the text after the last tool call is the answer", () => {
    const at = { timestamp: "2025-10-10T12:00:00.000Z" };
    const { events, outcome, sessionId } = parse(geminiAdapter, [
      { type: "init", ...at, session_id: "c25acda3-b3a4", model: "gemini-2.5-pro" },
      { type: "message", ...at, role: "user", content: "# ENG-1" },
      { type: "message", ...at, role: "assistant", content: "Let me look", delta: true },
      { type: "message", ...at, role: "assistant", content: " at the issue.", delta: true },
      { type: "tool_use", ...at, tool_name: "get_issue", tool_id: "get_issue-1", parameters: { issue: "ENG-1" } },
      { type: "tool_result", ...at, tool_id: "get_issue-1", status: "success", output: "ENG-1: Fix login" },
      { type: "error", ...at, severity: "warning", message: "Loop detected, continuing" },
      { type: "message", ...at, role: "assistant", content: "Fixed", delta: true },
      { type: "message", ...at, role: "assistant", content: " it.", delta: true },
      {
        type: "result",
        ...at,
        status: "success",
        stats: {
          total_tokens: 500,
          input_tokens: 400,
          output_tokens: 100,
          cached: 0,
          input: 400,
          duration_ms: 900,
          tool_calls: 1,
        },
      },
    ]);
    expect(sessionId).toBe("c25acda3-b3a4");
    expect(events.map((event) => event.type)).toEqual([
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_END",
      "TOOL_CALL_START",
      "TOOL_CALL_ARGS",
      "TOOL_CALL_END",
      "TOOL_CALL_RESULT",
      "CUSTOM",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_END",
    ]);
    expect(events[4]).toMatchObject({ toolCallName: "get_issue", parentMessageId: events[0]?.messageId });
    expect(outcome).toEqual({
      sessionId: "c25acda3-b3a4",
      answer: "Fixed it.",
      usage: { input_tokens: 400, output_tokens: 100 },
    });
  });

  it("reports a result with status error as the run's error", () => {
    const { outcome } = parse(geminiAdapter, [
      { type: "result", status: "error", error: { type: "FatalTurnLimitedError", message: "Reached max turns" } },
    ]);
    expect(outcome.error).toBe("Reached max turns");
  });
});
