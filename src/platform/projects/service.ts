import type { Actor } from "../../api/access.ts";
import type { Page } from "../../api/pagination.ts";
import { getInWorkspace, listInWorkspace } from "../../api/workspace-rows.ts";
import { inWorkspace } from "../../api/workspace-transaction.ts";
import { hasRole, type Role } from "../../auth/membership.ts";
import { ISSUE_STATUSES } from "../../db/enums.ts";
import type { Db } from "../../db/index.ts";
import type { ProjectsTable } from "../../db/schema.ts";
import { newId, now } from "../../db/values.ts";
import { deleteRecorded, diffFields, insertCreated, updateRecorded } from "../../events/activity.ts";
import { forbidden } from "../../http/errors.ts";
import { changingIssueLists } from "../issues/list-version.ts";
import { withNames } from "../names.ts";
import { patchActorRef } from "../references.ts";
import type { CreateProjectInput, UpdateProjectPatch } from "./schemas.ts";

type Project = ProjectsTable;

export const getProject = async (db: Db, workspaceId: string, projectId: string): Promise<Project> =>
  getInWorkspace(db, "projects", workspaceId, projectId, "Project");

export async function listProjects(db: Db, workspaceId: string, page: Page): Promise<Project[]> {
  return listInWorkspace(db, "projects", workspaceId, page);
}

export async function createProject(
  db: Db,
  workspaceId: string,
  input: CreateProjectInput,
  actor: Actor,
): Promise<Project> {
  return inWorkspace(db, workspaceId, async (trx) => {
    const lead = await patchActorRef(
      trx,
      workspaceId,
      "lead",
      { type: null, id: null },
      {
        type: input.lead_type,
        id: input.lead_id,
      },
    );
    const at = now();
    const row: ProjectsTable = {
      id: newId(),
      workspace_id: workspaceId,
      title: input.title,
      description: input.description ?? null,
      icon: input.icon ?? null,
      status: input.status,
      lead_type: lead.type,
      lead_id: lead.id,
      creator_id: actor.id,
      created_at: at,
      updated_at: at,
    };
    await insertCreated(trx, "projects", row, {
      workspaceId,
      entityType: "project",
      actor,
      details: { title: row.title },
    });
    return row;
  });
}

/** Admins, the project's lead and its creator may change or delete a project. */
function requireProjectManager(project: Project, actor: Actor, role: Role): void {
  if (hasRole(role, "admin")) return;
  if (project.lead_type === actor.type && project.lead_id === actor.id) return;
  if (project.creator_id === actor.id) return;
  throw forbidden("Only an admin, the project's lead or its creator may do this");
}

export async function updateProject(
  db: Db,
  workspaceId: string,
  projectId: string,
  patch: UpdateProjectPatch,
  actor: Actor,
  role: Role,
): Promise<Project> {
  return inWorkspace(db, workspaceId, async (trx) => {
    const before = await getProject(trx, workspaceId, projectId);
    requireProjectManager(before, actor, role);
    const lead = await patchActorRef(
      trx,
      workspaceId,
      "lead",
      { type: before.lead_type, id: before.lead_id },
      { type: patch.lead_type, id: patch.lead_id },
    );
    const next = {
      ...(patch.title !== undefined && { title: patch.title }),
      ...(patch.description !== undefined && { description: patch.description }),
      ...(patch.icon !== undefined && { icon: patch.icon }),
      ...(patch.status !== undefined && { status: patch.status }),
      lead_type: lead.type,
      lead_id: lead.id,
    };
    const changes = diffFields(before, next);
    if (Object.keys(changes).length === 0) return before;
    const updated_at = now();
    await updateRecorded(
      trx,
      "projects",
      before.id,
      { ...next, updated_at },
      {
        workspaceId,
        entityType: "project",
        actor,
        details: {
          changes: await withNames(trx, workspaceId, changes, { lead_id: { from: before.lead_type, to: lead.type } }),
        },
      },
    );
    return { ...before, ...next, updated_at };
  });
}

/** The project's issues stay, with project_id cleared. */
export async function deleteProject(
  db: Db,
  workspaceId: string,
  projectId: string,
  actor: Actor,
  role: Role,
): Promise<void> {
  await changingIssueLists(db, workspaceId, async (trx) => {
    const project = await getProject(trx, workspaceId, projectId);
    requireProjectManager(project, actor, role);
    await trx
      .updateTable("issues")
      .set({ project_id: null })
      .where("workspace_id", "=", workspaceId)
      .where("project_id", "=", project.id)
      .execute();
    await deleteRecorded(trx, "projects", project.id, {
      workspaceId,
      entityType: "project",
      actor,
      details: { title: project.title },
    });
  });
}

export async function projectStats(
  db: Db,
  workspaceId: string,
  projectId: string,
): Promise<{ total: number; by_status: Record<string, number> }> {
  const project = await getProject(db, workspaceId, projectId);
  const rows = await db
    .selectFrom("issues")
    .select((eb) => ["status", eb.fn.countAll<string | number>().as("count")])
    .where("workspace_id", "=", workspaceId)
    .where("project_id", "=", project.id)
    .groupBy("status")
    .execute();
  const by_status: Record<string, number> = Object.fromEntries(ISSUE_STATUSES.map((status) => [status, 0]));
  let total = 0;
  for (const row of rows) {
    by_status[row.status] = Number(row.count);
    total += Number(row.count);
  }
  return { total, by_status };
}
