// A stand-in for Claude Code's headless mode (`claude -p --output-format stream-json --verbose`), printing exactly
// the stream-json lines the real CLI prints (docs.claude.com headless mode; the Agent SDK's SDKMessage types:
// system/init, assistant and user messages wrapping Anthropic content blocks, and the final result).
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import {
  answerIn,
  applyRunDirectives,
  applyStartDirectives,
  askArguments,
  briefTitle,
  callMcpTool,
  directives,
  hang,
  readStdin,
  session,
} from "./directives.mjs";

const args = process.argv.slice(2);
if (args.includes("--version")) {
  console.log("2.1.220 (Claude Code)");
  process.exit(0);
}

function values(flag) {
  const at = args.indexOf(flag);
  if (at < 0) return [];
  const found = [];
  for (const value of args.slice(at + 1)) {
    if (value.startsWith("-")) break;
    found.push(value);
  }
  return found;
}

if (!args.includes("-p") && !args.includes("--print")) {
  console.error("Error: Input must be provided either through stdin or as a prompt argument when using --print");
  process.exit(1);
}
const format = values("--output-format")[0];
if (format === "stream-json" && !args.includes("--verbose")) {
  console.error("Error: When using --print, --output-format=stream-json requires --verbose");
  process.exit(1);
}

const prompt = await readStdin();
const found = directives(prompt);
const mcpConfigs = values("--mcp-config").map((file) => JSON.parse(readFileSync(file, "utf8")));
applyStartDirectives(found, prompt, { mcpConfigs });

const resumed = values("--resume")[0];
const sessionId = session(".claude-fake/sessions", resumed, randomUUID(), "No conversation found with session ID: ");
const model = "claude-sonnet-4-5-20250929";
const print = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const usage = (input, output) => ({
  input_tokens: input,
  cache_creation_input_tokens: 1200,
  cache_read_input_tokens: 3400,
  output_tokens: output,
  service_tier: "standard",
});
const assistant = (content, outputTokens) =>
  print({
    type: "assistant",
    message: {
      id: `msg_${randomUUID().replaceAll("-", "").slice(0, 24)}`,
      type: "message",
      role: "assistant",
      model,
      content,
      stop_reason: null,
      stop_sequence: null,
      usage: usage(3, outputTokens),
    },
    parent_tool_use_id: null,
    session_id: sessionId,
    uuid: randomUUID(),
  });

const servers = mcpConfigs.flatMap((config) => Object.keys(config.mcpServers ?? {}));
print({
  type: "system",
  subtype: "init",
  cwd: process.cwd(),
  session_id: sessionId,
  tools: ["Task", "Bash", "Edit", "Read", "Write", ...servers.map((name) => `mcp__${name}__add_comment`)],
  mcp_servers: servers.map((name) => ({ name, status: "connected" })),
  model,
  permissionMode: values("--permission-mode")[0] ?? "default",
  slash_commands: ["compact", "review"],
  apiKeySource: "ANTHROPIC_API_KEY",
  claude_code_version: "2.1.220",
  output_style: "default",
  agents: [],
  skills: [],
  plugins: [],
  uuid: randomUUID(),
});
const heard = answerIn(prompt);
if (typeof found.ask === "string" && heard === undefined) {
  const toolUseId = `toolu_01${randomUUID().replaceAll("-", "").slice(0, 22)}`;
  const input = askArguments(found.ask);
  assistant([{ type: "tool_use", id: toolUseId, name: "mcp__platform__ask_human", input }], 30);
  const text = await callMcpTool(mcpConfigs, "ask_human", input);
  print({
    type: "user",
    message: {
      role: "user",
      content: [{ tool_use_id: toolUseId, type: "tool_result", content: [{ type: "text", text }] }],
    },
    parent_tool_use_id: null,
    session_id: sessionId,
    uuid: randomUUID(),
  });
  hang();
} else if (applyRunDirectives(found)) {
  // hangs: the process lives on with the session started
} else {
  const toolUseId = `toolu_01${randomUUID().replaceAll("-", "").slice(0, 22)}`;
  assistant(
    [{ type: "thinking", thinking: "The brief asks for a comment on the issue.", signature: "EqQBCkYIBxgC" }],
    12,
  );
  assistant(
    [
      { type: "text", text: "I'll add a comment to the issue." },
      {
        type: "tool_use",
        id: toolUseId,
        name: "mcp__platform__add_comment",
        input: { issue: "ENG-1", body: "Looking into it" },
      },
    ],
    40,
  );
  print({
    type: "user",
    message: {
      role: "user",
      content: [{ tool_use_id: toolUseId, type: "tool_result", content: [{ type: "text", text: "Comment added" }] }],
    },
    parent_tool_use_id: null,
    session_id: sessionId,
    uuid: randomUUID(),
  });
  const answer = `${resumed ? `Resumed session ${resumed}. ` : ""}Worked on: ${briefTitle(prompt)}${heard === undefined ? "" : ` (heard: ${heard})`}`;
  if (found["fail-turn"]) {
    print({
      type: "result",
      subtype: "success",
      is_error: true,
      duration_ms: 862,
      duration_api_ms: 0,
      num_turns: 1,
      result: "API Error: 529 Overloaded",
      session_id: sessionId,
      total_cost_usd: 0,
      usage: usage(0, 0),
      modelUsage: {},
      permission_denials: [],
      uuid: randomUUID(),
    });
    process.exit(1);
  }
  assistant([{ type: "text", text: answer }], 25);
  print({
    type: "result",
    subtype: "success",
    is_error: false,
    duration_ms: 2345,
    duration_api_ms: 2100,
    num_turns: 3,
    result: answer,
    session_id: sessionId,
    total_cost_usd: 0.0123,
    usage: usage(10, 77),
    modelUsage: {
      [model]: { inputTokens: 10, outputTokens: 77, cacheReadInputTokens: 3400, cacheCreationInputTokens: 1200 },
    },
    permission_denials: [],
    uuid: randomUUID(),
  });
}
