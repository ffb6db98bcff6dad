// The parts every face shares, built once per process: credentials, the tool registry with its platform and agent
// sources, the one tool invoker and the agent runtime. server.ts (HTTP) and the stdio command wire them the same way.
import { AgentStatusTracker } from "./agents/agent-status.ts";
import { AgentRuntime } from "./agents/runtime.ts";
import { agentToolSource } from "./agents/tools.ts";
import { Authenticator } from "./auth/authenticator.ts";
import { TokenService } from "./auth/tokens.ts";
import type { Config } from "./config.ts";
import type { Db } from "./db/index.ts";
import { platformToolSource } from "./platform/tools.ts";
import { wireWorkHooks } from "./platform/work-hooks.ts";
import { skillsInRuns } from "./skills/run-tools.ts";
import { ToolInvoker } from "./tools/invoker.ts";
import { ToolRegistry } from "./tools/registry.ts";
import { syncAgentStatus } from "./work/agent-work-status.ts";
import { askHumanInRuns, runnerAskHumanSource } from "./work/ask-human.ts";
import { workTriggers } from "./work/triggers.ts";

interface Core {
  tokens: TokenService;
  authenticator: Authenticator;
  registry: ToolRegistry;
  tools: ToolInvoker;
  runtime: AgentRuntime;
  /** Agents' runs in progress on this process; closed on shutdown. */
  status: AgentStatusTracker;
}

/** `registry` holds the custom tools already; the platform and agent tools are added after them. */
export function buildCore(config: Config, db: Db, registry = new ToolRegistry()): Core {
  wireWorkHooks(workTriggers(config.work.triggerBounds));
  const tokens = new TokenService(config.jwtSecret, config.jwtTtlSeconds);
  const authenticator = new Authenticator(db, tokens);
  const tools = new ToolInvoker(registry, { timeoutMs: config.toolTimeoutMs });
  const status = new AgentStatusTracker(db, syncAgentStatus, { leaseMs: config.work.leaseMs });
  const runtime = new AgentRuntime({
    db,
    tools,
    settings: config.agent,
    status,
    additions: [skillsInRuns(db), askHumanInRuns],
  });
  registry.addSource(platformToolSource(db));
  registry.addSource(agentToolSource(db, runtime));
  registry.addSource(runnerAskHumanSource(db));
  return { tokens, authenticator, registry, tools, runtime, status };
}
