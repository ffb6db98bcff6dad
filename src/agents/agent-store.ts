// The agents the runtime runs, read through the platform agents service; the one query of its own
// finds an agent by id alone (the agent-UI endpoint is told an id, not a workspace).
import type { Db } from "../db/index.ts";
import { isId } from "../db/values.ts";
import { type Agent, getAgent, listAgents } from "../platform/agents/service.ts";

/** Every workspace lists at most this many agents as tools. */
const AGENT_TOOLS_LIMIT = 200;

export async function findAgent(db: Db, agentId: string): Promise<Agent | undefined> {
  if (!isId(agentId)) return undefined;
  const row = await db.selectFrom("agents").select("workspace_id").where("id", "=", agentId).executeTakeFirst();
  if (!row) return undefined;
  return getAgent(db, row.workspace_id, agentId).catch(() => undefined);
}

export function listWorkspaceAgents(db: Db, workspaceId: string): Promise<Agent[]> {
  return listAgents(db, workspaceId, { limit: AGENT_TOOLS_LIMIT, offset: 0 });
}
