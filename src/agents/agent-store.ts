// The few reads and writes of the agents table the runtime needs (the agents API owns the rest).
import type { Db } from "../db/index.ts";
import { fromJson, now } from "../db/values.ts";
import { recordActivity } from "../platform/activity/record.ts";

export interface PlatformAgent {
  id: string;
  workspaceId: string;
  name: string;
  description: string | null;
  instructions: string | null;
  model: string | null;
  tools: string[];
  status: string;
}

const COLUMNS = ["id", "workspace_id", "name", "description", "instructions", "model", "tools", "status"] as const;

type AgentRow = {
  id: string;
  workspace_id: string;
  name: string;
  description: string | null;
  instructions: string | null;
  model: string | null;
  tools: string;
  status: string;
};

const toAgent = (row: AgentRow): PlatformAgent => ({
  id: row.id,
  workspaceId: row.workspace_id,
  name: row.name,
  description: row.description,
  instructions: row.instructions,
  model: row.model,
  tools: toolNames(row.tools),
  status: row.status,
});

function toolNames(text: string): string[] {
  const value = fromJson<unknown>(text, []);
  return Array.isArray(value) ? value.filter((name): name is string => typeof name === "string") : [];
}

export async function findAgent(db: Db, agentId: string): Promise<PlatformAgent | undefined> {
  const row = await db.selectFrom("agents").select(COLUMNS).where("id", "=", agentId).executeTakeFirst();
  return row ? toAgent(row) : undefined;
}

export async function listWorkspaceAgents(db: Db, workspaceId: string): Promise<PlatformAgent[]> {
  const rows = await db
    .selectFrom("agents")
    .select(COLUMNS)
    .where("workspace_id", "=", workspaceId)
    .orderBy("created_at")
    .execute();
  return rows.map(toAgent);
}

/** Sets the agent's status and writes the change to the activity log, as done by the agent itself. */
export async function writeAgentStatus(db: Db, agent: PlatformAgent, status: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const current = await trx.selectFrom("agents").select("status").where("id", "=", agent.id).executeTakeFirst();
    if (!current || current.status === status) return;
    await trx.updateTable("agents").set({ status, updated_at: now() }).where("id", "=", agent.id).execute();
    await recordActivity(trx, {
      workspaceId: agent.workspaceId,
      entityType: "agent",
      entityId: agent.id,
      actor: { type: "agent", id: agent.id },
      action: "agent.updated",
      details: { changes: { status: { from: current.status, to: status } } },
    });
  });
}
