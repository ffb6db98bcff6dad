#!/usr/bin/env node
// A `command` runtime to try the runner without an agent CLI installed:
//
//   agent-platform runner --url http://127.0.0.1:8000 --runtime echo="node examples/runner-agent.mjs"
//
// It reads the task brief on stdin, says what it is doing as an AG-UI CUSTOM event (a stdout line holding a JSON
// object with an AG-UI `type`), and answers on stdout; the answer becomes the agent's comment on the issue. A real
// agent would act on the platform with AGENT_PLATFORM_TOKEN (the task token) at AGENT_PLATFORM_URL or through the
// tools at AGENT_PLATFORM_MCP_URL.
let brief = "";
for await (const chunk of process.stdin) brief += chunk;

const heading = brief.split("\n").find((line) => line.trim() !== "") ?? "";
console.log(JSON.stringify({ type: "CUSTOM", name: "progress", value: { step: "read the brief" } }));
console.log(`I read the brief of ${process.env.AGENT_PLATFORM_ISSUE}: ${heading.replace(/^#+\s*/, "")}`);
console.log(`It is ${brief.length} characters long.`);
