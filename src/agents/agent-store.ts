// The agents the runtime runs, read and updated through the platform agents service; the one query of its own
// finds an agent by id alone (the agent-UI endpoint is told an id, not a workspace).
import type { Db } from "../db/index.ts";
import { isId } from "../db/values.ts";
import { type Agent, getAgent, listAgents, setAgentStatus } from "../platform/agents/service.ts";

export type PlatformAgent = Agent;

/** Every workspace lists at most this many agents as tools. */
const AGENT_TOOLS_LIMIT = 200;

export async function findAgent(db: Db, agentId: string): Promise<PlatformAgent | undefined> {
  if (!isId(agentId)) return undefined;
  const row = await db.selectFrom("agents").select("workspace_id").where("id", "=", agentId).executeTakeFirst();
  if (!row) return undefined;
  return getAgent(db, row.workspace_id, agentId).catch(() => undefined);
}

export function listWorkspaceAgents(db: Db, workspaceId: string): Promise<PlatformAgent[]> {
  return listAgents(db, workspaceId, { limit: AGENT_TOOLS_LIMIT, offset: 0 });
}

/** The agent's status, changed by the agent itself (so the activity log says the agent did it). */
export async function writeAgentStatus(db: Db, agent: PlatformAgent, status: "working" | "idle" | "error") {
  await setAgentStatus(db, agent.workspace_id, agent.id, status, { type: "agent", id: agent.id });
}
