// A stand-in for `codex exec --json`, printing exactly the JSONL events the real CLI prints (openai/codex
// codex-rs/exec/src/exec_events.rs: thread.started, turn.started, item.started|completed with agent_message,
// reasoning, command_execution, mcp_tool_call and file_change items, turn.completed with usage; turn.failed).

import { execSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { applyRunDirectives, applyStartDirectives, briefTitle, directives, readStdin, session } from "./directives.mjs";

const args = process.argv.slice(2);
if (args[0] === "--version") {
  console.log("codex-cli 0.58.0");
  process.exit(0);
}
if (args[0] !== "exec") {
  console.error("fake codex: only `codex exec` is implemented");
  process.exit(2);
}

const config = {};
let resumed;
let promptArg;
for (let i = 1; i < args.length; i++) {
  const arg = args[i];
  if (arg === "-c" || arg === "--config") {
    const [key, ...rest] = args[++i].split("=");
    const raw = rest.join("=");
    config[key] = raw.startsWith('"') ? JSON.parse(raw) : raw;
  } else if (arg === "--sandbox" || arg === "-s") i++;
  else if (arg === "resume") resumed = args[++i];
  else if (!arg.startsWith("-") || arg === "-") promptArg = arg;
}
const insideGit = (() => {
  try {
    execSync("git rev-parse --is-inside-work-tree", { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();
if (!args.includes("--skip-git-repo-check") && !insideGit) {
  console.error("Not inside a trusted directory and --skip-git-repo-check was not specified.");
  process.exit(1);
}
if (promptArg !== "-") {
  console.error("fake codex: the prompt is expected on stdin (`-`)");
  process.exit(2);
}

const prompt = await readStdin();
const found = directives(prompt);
applyStartDirectives(found, prompt, { config });
const print = (event) => process.stdout.write(`${JSON.stringify(event)}\n`);
const threadId = session(".codex-fake/sessions", resumed, randomUUID(), "Error: no rollout found for thread id ");
print({ type: "thread.started", thread_id: threadId });
print({ type: "turn.started" });
if (!applyRunDirectives(found)) {
  if (found["fail-turn"]) {
    print({ type: "error", message: "stream error: unexpected status 503 Service Unavailable" });
    print({ type: "turn.failed", error: { message: "stream error: unexpected status 503 Service Unavailable" } });
    process.exit(1);
  }
  print({ type: "item.completed", item: { id: "item_0", type: "reasoning", text: "**Reading the issue first**" } });
  const mcpCall = {
    id: "item_1",
    type: "mcp_tool_call",
    server: "platform",
    tool: "get_issue",
    arguments: { issue: "ENG-1" },
    result: null,
    error: null,
    status: "in_progress",
  };
  print({ type: "item.started", item: mcpCall });
  print({
    type: "item.completed",
    item: {
      ...mcpCall,
      result: { content: [{ type: "text", text: '{"identifier":"ENG-1"}' }], structured_content: null },
      status: "completed",
    },
  });
  const command = { id: "item_2", type: "command_execution", command: "bash -lc ls", aggregated_output: "" };
  print({ type: "item.started", item: { ...command, exit_code: null, status: "in_progress" } });
  const listing = execSync("ls", { encoding: "utf8" });
  print({
    type: "item.completed",
    item: { ...command, aggregated_output: listing, exit_code: 0, status: "completed" },
  });
  writeFileSync("notes.md", "notes\n");
  print({
    type: "item.completed",
    item: {
      id: "item_3",
      type: "file_change",
      changes: [{ path: join(process.cwd(), "notes.md"), kind: "add" }],
      status: "completed",
    },
  });
  const answer = `${resumed ? `Resumed thread ${resumed}. ` : ""}Worked on: ${briefTitle(prompt)}`;
  print({ type: "item.completed", item: { id: "item_4", type: "agent_message", text: answer } });
  print({ type: "turn.completed", usage: { input_tokens: 24763, cached_input_tokens: 24448, output_tokens: 122 } });
}
