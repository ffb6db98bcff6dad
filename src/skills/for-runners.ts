// Skills in a runner's assignment (runtimes.md, autopilots-skills.md §2): each skill the agent carries, its files
// by sha256 (a runner caches them by it) and the URL it fetches each from with the task token.
import type { Db } from "../db/index.ts";
import { skillsOfAgent } from "./run-tools.ts";

export interface AssignedSkill {
  name: string;
  description: string;
  files: { path: string; size: number; sha256: string; url: string }[];
}

export async function skillsForRunner(
  db: Db,
  workspaceId: string,
  agentId: string,
  platformUrl: string,
): Promise<AssignedSkill[]> {
  const skills = await skillsOfAgent(db, agentId);
  if (skills.length === 0) return [];
  const files = await db
    .selectFrom("skill_files")
    .select(["skill_id", "path", "size", "sha256"])
    .where(
      "skill_id",
      "in",
      skills.map((skill) => skill.id),
    )
    .orderBy("path")
    .execute();
  const base = `${platformUrl.replace(/\/+$/, "")}/api/v1/workspaces/${workspaceId}/skills`;
  return skills.map((skill) => ({
    name: skill.name,
    description: skill.description,
    files: files
      .filter((file) => file.skill_id === skill.id)
      .map((file) => ({
        path: file.path,
        size: Number(file.size),
        sha256: file.sha256,
        url: `${base}/${skill.id}/files/${file.path.split("/").map(encodeURIComponent).join("/")}`,
      })),
  }));
}
