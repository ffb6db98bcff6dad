// The skills an agent carries (ids of its workspace's skills, in the order given), kept in a link table.
import { getInWorkspace } from "../../api/workspace-rows.ts";
import type { Db } from "../../db/index.ts";

/** Each agent's skill ids, in their order, in one query. */
export async function skillIdsOf(db: Db, agentIds: string[]): Promise<Map<string, string[]>> {
  const byAgent = new Map<string, string[]>(agentIds.map((id) => [id, []]));
  if (agentIds.length === 0) return byAgent;
  const rows = await db
    .selectFrom("agent_skills")
    .select(["agent_id", "skill_id"])
    .where("agent_id", "in", agentIds)
    .orderBy("agent_id")
    .orderBy("position")
    .execute();
  for (const row of rows) byAgent.get(row.agent_id)?.push(row.skill_id);
  return byAgent;
}

/** Inside the agent's transaction: replaces its skills; 404 "Skill not found" for one not of this workspace. */
export async function setSkillsOf(trx: Db, workspaceId: string, agentId: string, skillIds: string[]): Promise<void> {
  for (const skillId of skillIds) await getInWorkspace(trx, "skills", workspaceId, skillId, "Skill");
  await trx.deleteFrom("agent_skills").where("agent_id", "=", agentId).execute();
  if (skillIds.length === 0) return;
  await trx
    .insertInto("agent_skills")
    .values(skillIds.map((skillId, position) => ({ agent_id: agentId, skill_id: skillId, position })))
    .execute();
}
