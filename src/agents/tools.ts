// Agent tools for the registry (workspace scope): ask_<agent_name_slug> runs that platform agent, list_agents lists them.
import { randomUUID } from "node:crypto";
import type { Db } from "../db/index.ts";
import type { Agent, ToolNameCheck } from "../platform/agents/service.ts";
import type { ToolInvoker } from "../tools/invoker.ts";
import type { Tool, ToolContext, ToolSource } from "../tools/registry.ts";
import { listWorkspaceAgents } from "./agent-store.ts";
import type { AgentRuntime } from "./runtime.ts";

/** `Support Bot #2` → `support_bot_2`. */
function agentSlug(name: string): string {
  const slug = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  return slug || "agent";
}

/**
 * Agents may name a tool the registry has for their workspace, or their own ask_<agent> tool (which exists once they
 * do; names shared with other agents get a suffix only later, so the plain name is what an agent can name upfront).
 */
export function registryToolNameCheck(tools: ToolInvoker): ToolNameCheck {
  return async (name, { workspaceId, userId, agentName }) =>
    name === `ask_${agentSlug(agentName).slice(0, 48)}` ||
    (await tools.find(name, { workspaceId, userId })) !== undefined;
}

/** `list_agents` and one `ask_<agent>` per agent of the caller's workspace (read when asked: agents change). */
export function agentToolSource(db: Db, runtime: AgentRuntime): ToolSource {
  return {
    async list(toolContext: ToolContext): Promise<Tool[]> {
      const workspaceId = toolContext.workspaceId;
      if (!workspaceId) return [];
      const agents = await listWorkspaceAgents(db, workspaceId);
      const names = askToolNames(agents);
      return [
        listAgentsTool(async () => agents),
        ...agents.map((agent) => askTool(runtime, agent, names.get(agent.id)!)),
      ];
    },
    // Found without listing the agents: list_agents reads them when it runs, other names are not ours.
    async find(name: string, toolContext: ToolContext): Promise<Tool | undefined> {
      const workspaceId = toolContext.workspaceId;
      if (!workspaceId) return undefined;
      if (name === "list_agents") return listAgentsTool(() => listWorkspaceAgents(db, workspaceId));
      if (!name.startsWith("ask_")) return undefined;
      return (await this.list(toolContext)).find((tool) => tool.name === name);
    },
  };
}

/**
 * One tool name per agent. Agent names need not be unique: the oldest agent of a name keeps `ask_<slug>`, later ones
 * get the start of their id appended, so every agent stays reachable. Names fit the 64 characters providers accept.
 */
export function askToolNames(agents: Agent[]): Map<string, string> {
  const names = new Map<string, string>();
  const taken = new Set<string>();
  for (const agent of agents) {
    const base = `ask_${agentSlug(agent.name).slice(0, 48)}`;
    const name = taken.has(base) ? `${base}_${agent.id.slice(0, 8)}` : base;
    taken.add(name);
    names.set(agent.id, name);
  }
  return names;
}

function listAgentsTool(readAgents: () => Promise<Agent[]>): Tool {
  return {
    name: "list_agents",
    description: "List the agents of this workspace, with the ask_<agent> tool that talks to each.",
    inputSchema: { type: "object", properties: {} },
    run: async () => {
      const agents = await readAgents();
      const names = askToolNames(agents);
      return agents.map((agent) => ({
        id: agent.id,
        name: agent.name,
        description: agent.description,
        status: agent.status,
        model: agent.model,
        tool: names.get(agent.id),
      }));
    },
  };
}

function askTool(runtime: AgentRuntime, agent: Agent, name: string): Tool {
  return {
    name,
    description: `Ask the agent "${agent.name}" and get its answer.${agent.description ? ` ${agent.description}` : ""} Pass the same session_id again to continue the conversation.`,
    inputSchema: {
      type: "object",
      properties: {
        message: { type: "string", minLength: 1, description: "What to ask the agent" },
        session_id: {
          type: "string",
          minLength: 1,
          description: "Conversation to continue (returned by earlier calls)",
        },
      },
      required: ["message"],
      additionalProperties: false,
    },
    run: async (args, toolContext) => {
      const sessionId = typeof args.session_id === "string" ? args.session_id : randomUUID();
      const response = await runtime.ask(agent, String(args.message), sessionId, toolContext);
      return { agent: agent.name, response, session_id: sessionId };
    },
  };
}
