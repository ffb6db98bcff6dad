// Skills of a workspace: folders stored whole (one row per file), named by SKILL.md's front matter. Members read and
// create; the creator or an admin replaces or deletes.
import type { Actor } from "../api/access.ts";
import type { Page } from "../api/pagination.ts";
import { uniqueOr409 } from "../api/unique.ts";
import { getInWorkspace, listInWorkspace } from "../api/workspace-rows.ts";
import { inWorkspace } from "../api/workspace-transaction.ts";
import { hasRole, type Membership } from "../auth/membership.ts";
import type { Db } from "../db/index.ts";
import type { SkillsTable } from "../db/schema.ts";
import { newId, now } from "../db/values.ts";
import { deleteRecorded, diffFields, insertCreated, updateRecorded } from "../events/activity.ts";
import { forbidden, notFound } from "../http/errors.ts";
import type { SkillFolder } from "./folder.ts";
import type { Skill } from "./schemas.ts";

const NAME_TAKEN = "A skill with this name already exists in this workspace";

type FileSummary = Skill["files"][number];

export const getSkillRow = (db: Db, workspaceId: string, skillId: string): Promise<SkillsTable> =>
  getInWorkspace(db, "skills", workspaceId, skillId, "Skill");

/** Each skill's files (path, size, sha256; never the bytes), by path, in one query. */
async function filesOf(db: Db, skillIds: string[]): Promise<Map<string, FileSummary[]>> {
  const bySkill = new Map<string, FileSummary[]>(skillIds.map((id) => [id, []]));
  if (skillIds.length === 0) return bySkill;
  const rows = await db
    .selectFrom("skill_files")
    .select(["skill_id", "path", "size", "sha256"])
    .where("skill_id", "in", skillIds)
    .orderBy("skill_id")
    .orderBy("path")
    .execute();
  for (const { skill_id, ...file } of rows) bySkill.get(skill_id)?.push({ ...file, size: Number(file.size) });
  return bySkill;
}

async function withFiles(db: Db, rows: SkillsTable[]): Promise<Skill[]> {
  const files = await filesOf(
    db,
    rows.map((row) => row.id),
  );
  return rows.map((row) => ({ ...row, files: files.get(row.id) ?? [] }));
}

export async function getSkill(db: Db, workspaceId: string, skillId: string): Promise<Skill> {
  const [skill] = await withFiles(db, [await getSkillRow(db, workspaceId, skillId)]);
  return skill as Skill;
}

/** By name. */
export async function listSkills(db: Db, workspaceId: string, page: Page): Promise<Skill[]> {
  return withFiles(db, await listInWorkspace(db, "skills", workspaceId, page, "name"));
}

async function insertFiles(trx: Db, skillId: string, folder: SkillFolder): Promise<void> {
  // One statement per file: a 5 MiB skill in one statement could pass PostgreSQL's parameter and packet limits.
  for (const file of folder.files) {
    await trx
      .insertInto("skill_files")
      .values({ skill_id: skillId, path: file.path, size: file.size, sha256: file.sha256, content: file.content })
      .execute();
  }
}

export async function createSkill(db: Db, workspaceId: string, folder: SkillFolder, actor: Actor): Promise<Skill> {
  const at = now();
  const row: SkillsTable = {
    id: newId(),
    workspace_id: workspaceId,
    name: folder.name,
    description: folder.description,
    created_by: actor.id,
    created_at: at,
    updated_at: at,
  };
  await uniqueOr409(NAME_TAKEN, () =>
    inWorkspace(db, workspaceId, async (trx) => {
      await insertCreated(trx, "skills", row, {
        workspaceId,
        entityType: "skill",
        actor,
        details: { name: row.name, files: folder.files.length },
      });
      await insertFiles(trx, row.id, folder);
    }),
  );
  return getSkill(db, workspaceId, row.id);
}

function requireManager(skill: SkillsTable, by: Membership): void {
  if (skill.created_by !== by.userId && !hasRole(by.role, "admin")) {
    throw forbidden("Only an admin or the skill's creator can change this skill");
  }
}

/** Replaces every file (and the name and description, which come from the new SKILL.md). */
export async function replaceSkill(
  db: Db,
  by: Membership,
  skillId: string,
  folder: SkillFolder,
  actor: Actor,
): Promise<Skill> {
  await uniqueOr409(NAME_TAKEN, () =>
    inWorkspace(db, by.workspaceId, async (trx) => {
      const before = await getSkillRow(trx, by.workspaceId, skillId);
      requireManager(before, by);
      const next = { name: folder.name, description: folder.description, updated_at: now() };
      await updateRecorded(trx, "skills", before.id, next, {
        workspaceId: by.workspaceId,
        entityType: "skill",
        actor,
        details: {
          changes: diffFields(before, { name: next.name, description: next.description }),
          files: folder.files.length,
        },
      });
      await trx.deleteFrom("skill_files").where("skill_id", "=", before.id).execute();
      await insertFiles(trx, before.id, folder);
    }),
  );
  return getSkill(db, by.workspaceId, skillId);
}

/** Deletes the skill, its files, and its place on every agent that carried it. */
export async function deleteSkill(db: Db, by: Membership, skillId: string, actor: Actor): Promise<void> {
  await inWorkspace(db, by.workspaceId, async (trx) => {
    const skill = await getSkillRow(trx, by.workspaceId, skillId);
    requireManager(skill, by);
    const unlinked = await trx.deleteFrom("agent_skills").where("skill_id", "=", skill.id).executeTakeFirst();
    await trx.deleteFrom("skill_files").where("skill_id", "=", skill.id).execute();
    await deleteRecorded(trx, "skills", skill.id, {
      workspaceId: by.workspaceId,
      entityType: "skill",
      actor,
      details: { name: skill.name, unlinked_agents: Number(unlinked.numDeletedRows) },
    });
  });
}

/** One file's bytes; 404 "File not found" for a path the skill does not hold. */
export async function readSkillFile(
  db: Db,
  workspaceId: string,
  skillId: string,
  path: string,
): Promise<{ path: string; content: Buffer }> {
  const skill = await getSkillRow(db, workspaceId, skillId);
  const file = await db
    .selectFrom("skill_files")
    .select(["path", "content"])
    .where("skill_id", "=", skill.id)
    .where("path", "=", path)
    .executeTakeFirst();
  if (!file) throw notFound("File");
  return { path: file.path, content: Buffer.from(file.content) };
}
