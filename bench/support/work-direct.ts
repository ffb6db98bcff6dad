// Child of bench/work.ts: the baseline. The same runs as the task benchmark, started directly through the agent
// runtime (same agents, same task frames, same tools offered, same model double), AGENT_WORKERS of them at once, with
// no queue, leases, stored events, comments or statuses. Prints one JSON line: {runs, seconds}.
import { AgentStatusTracker } from "../../src/agents/agent-status.ts";
import { SILENT_SINK } from "../../src/agents/run-types.ts";
import { AgentRuntime } from "../../src/agents/runtime.ts";
import { agentToolSource } from "../../src/agents/tools.ts";
import { loadConfig } from "../../src/config.ts";
import { openDatabase } from "../../src/db/index.ts";
import { migrateToLatest } from "../../src/db/migrate.ts";
import { newId, now } from "../../src/db/values.ts";
import { createUser } from "../../src/platform/accounts/users.ts";
import { createAgent } from "../../src/platform/agents/service.ts";
import { createIssue } from "../../src/platform/issues/service.ts";
import { PLATFORM_TOOL_NAMES, platformToolSource } from "../../src/platform/tools.ts";
import { wireWorkHooks } from "../../src/platform/work-hooks.ts";
import { createWorkspace } from "../../src/platform/workspaces/service.ts";
import { ToolInvoker } from "../../src/tools/invoker.ts";
import type { Tool } from "../../src/tools/registry.ts";
import { ToolRegistry } from "../../src/tools/registry.ts";
import { syncAgentStatus } from "../../src/work/agent-work-status.ts";
import { buildTaskFrame } from "../../src/work/frame.ts";
import { workTriggers } from "../../src/work/triggers.ts";

const [tasks, agentCount] = [Number(process.argv[2] ?? 1000), Number(process.argv[3] ?? 20)];
const config = loadConfig();
const database = openDatabase(config.databaseUrl);
await migrateToLatest(database.db);
const { db } = database;
// The issues are created as the platform creates them (core.ts wires the same hooks in a server).
wireWorkHooks(workTriggers(config.work.triggerBounds));
const registry = new ToolRegistry();
const tools = new ToolInvoker(registry);
const status = new AgentStatusTracker(db, syncAgentStatus, { leaseMs: config.work.leaseMs });
const runtime = new AgentRuntime({ db, tools, settings: config.agent, status });
registry.addSource(platformToolSource(db)).addSource(agentToolSource(db, runtime));

const user = await createUser(db, { email: `direct-${Date.now()}@example.com`, name: "Bench", passwordHash: "x" });
const actor = { type: "member" as const, id: user.id };
const workspace = await createWorkspace(db, { name: "Direct" }, actor);
const agents = [];
for (let index = 0; index < agentCount; index++) {
  agents.push(
    await createAgent(
      db,
      workspace.id,
      {
        name: `Agent ${index}`,
        tools: [],
        status: "offline",
        runtime_mode: "local",
        runtime_config: {},
        max_concurrent_tasks: 1,
      },
      actor,
    ),
  );
}
// The frames are built before the clock starts: the worker builds its own inside the measured time.
const runs: {
  agent: (typeof agents)[number];
  frame: Awaited<ReturnType<typeof buildTaskFrame>>;
  extraTools: Tool[];
}[] = [];
for (let index = 0; index < tasks; index++) {
  const agent = agents[index % agents.length]!;
  const issue = await createIssue(
    db,
    workspace.id,
    { title: `Task ${index}`, status: "backlog", priority: "none" },
    actor,
  );
  const task = {
    workspace_id: workspace.id,
    issue_id: issue.id,
    agent_id: agent.id,
    trigger: "assigned",
    comment_id: null,
  };
  const frame = await buildTaskFrame(db, { ...task, created_at: now() } as never, agent);
  const context = { workspaceId: workspace.id, agentId: agent.id };
  const found = await Promise.all([...PLATFORM_TOOL_NAMES, "list_agents"].map((name) => tools.find(name, context)));
  runs.push({ agent, frame, extraTools: found.filter((tool): tool is Tool => tool !== undefined) });
}

let next = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: config.work.workers }, async () => {
    for (let index = next++; index < runs.length; index = next++) {
      const { agent, frame, extraTools } = runs[index]!;
      await runtime.run({
        agent: runtime.agentSpec(agent),
        scope: `bench:${agent.id}`,
        threadId: newId(),
        messages: [frame.message],
        extraTools,
        toolContext: { workspaceId: workspace.id },
        managesAgentStatus: false,
        signal: new AbortController().signal,
        sink: SILENT_SINK,
      });
    }
  }),
);
const seconds = (performance.now() - started) / 1000;
console.log(JSON.stringify({ runs: runs.length, seconds }));
await database.close();
