import { type Selectable, sql } from "kysely";
import type { Actor } from "../../api/access.ts";
import type { Db } from "../../db/index.ts";
import { isPostgres, isUniqueViolation } from "../../db/index.ts";
import type { WorkspacesTable } from "../../db/schema.ts";
import { fromJson, newId, now, toJson } from "../../db/values.ts";
import { diffFields, recordActivity } from "../../events/activity.ts";
import { notFound } from "../../http/errors.ts";
import { changingIssueLists } from "../issues/list-version.ts";
import { workHooks } from "../work-hooks.ts";

type Workspace = Omit<Selectable<WorkspacesTable>, "settings" | "issue_counter" | "issue_list_version"> & {
  settings: Record<string, unknown>;
};

const toWorkspace = ({
  issue_counter: _counter,
  issue_list_version: _version,
  ...row
}: Selectable<WorkspacesTable>): Workspace => ({
  ...row,
  settings: fromJson(row.settings, {}),
});

function slugify(name: string): string {
  const slug = name
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 80)
    .replace(/-+$/, "");
  return slug || "workspace";
}

/** The first of `base`, `base-1`, `base-2`… that no workspace has yet. */
async function freeSlug(db: Db, base: string): Promise<string> {
  const taken = new Set(
    (
      await db
        .selectFrom("workspaces")
        .select("slug")
        .where((eb) => eb.or([eb("slug", "=", base), eb("slug", "like", `${base}-%`)]))
        .execute()
    ).map((row) => row.slug),
  );
  if (!taken.has(base)) return base;
  for (let suffix = 1; ; suffix++) if (!taken.has(`${base}-${suffix}`)) return `${base}-${suffix}`;
}

/**
 * Creates of the same base slug take turns until commit (SQLite runs one transaction at a time anyway), so each picks
 * its free slug after the one before it has taken its own.
 */
async function lockSlug(trx: Db, base: string): Promise<void> {
  if (isPostgres(trx)) await sql`select pg_advisory_xact_lock(hashtext(${`workspace-slug:${base}`}))`.execute(trx);
}

/** A taken slug, whether given or derived from the name, is made unique with `-1`, `-2`… */
export async function createWorkspace(
  db: Db,
  input: { name: string; slug?: string | null | undefined; description?: string | null | undefined },
  actor: Actor,
): Promise<Workspace> {
  const base = input.slug ?? slugify(input.name);
  // The lock covers creates of one base; `a-1` given while `a` derives `a-1` can still collide: pick again.
  for (let attempt = 0; ; attempt++) {
    try {
      return await db.transaction().execute(async (trx) => {
        await lockSlug(trx, base);
        const slug = await freeSlug(trx, base);
        const at = now();
        const row: Selectable<WorkspacesTable> = {
          id: newId(),
          name: input.name,
          slug,
          description: input.description ?? null,
          settings: toJson({}),
          issue_prefix: "ISS",
          issue_counter: 0,
          issue_list_version: 0,
          created_at: at,
          updated_at: at,
          monthly_budget_usd: null,
        };
        await trx.insertInto("workspaces").values(row).execute();
        await trx
          .insertInto("members")
          .values({ id: newId(), workspace_id: row.id, user_id: actor.id, role: "owner", created_at: at })
          .execute();
        await recordActivity(trx, {
          workspaceId: row.id,
          entityType: "workspace",
          entityId: row.id,
          actor,
          action: "workspace.created",
          details: { name: row.name, slug },
        });
        return toWorkspace(row);
      });
    } catch (error) {
      if (!isUniqueViolation(error) || attempt >= 20) throw error;
    }
  }
}

export async function listWorkspaces(
  db: Db,
  userId: string,
  page: { limit: number; offset: number },
  onlyWorkspaceId?: string,
): Promise<Workspace[]> {
  let query = db
    .selectFrom("workspaces")
    .innerJoin("members", "members.workspace_id", "workspaces.id")
    .selectAll("workspaces")
    .where("members.user_id", "=", userId);
  if (onlyWorkspaceId !== undefined) query = query.where("workspaces.id", "=", onlyWorkspaceId);
  const rows = await query
    .orderBy("workspaces.created_at")
    .orderBy("workspaces.id")
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map(toWorkspace);
}

export async function getWorkspace(db: Db, workspaceId: string): Promise<Workspace> {
  const row = await db.selectFrom("workspaces").selectAll().where("id", "=", workspaceId).executeTakeFirst();
  if (!row) throw notFound("Workspace");
  return toWorkspace(row);
}

export async function updateWorkspace(
  db: Db,
  workspaceId: string,
  patch: {
    name?: string | undefined;
    description?: string | null | undefined;
    settings?: Record<string, unknown> | undefined;
    issue_prefix?: string | undefined;
    monthly_budget_usd?: number | null | undefined;
  },
  actor: Actor,
): Promise<Workspace> {
  // The issue prefix is part of every listed issue's identifier.
  return changingIssueLists(db, workspaceId, async (trx) => {
    const before = await getWorkspace(trx, workspaceId);
    const changes = diffFields(before, patch);
    if (Object.keys(changes).length === 0) return before;
    await trx
      .updateTable("workspaces")
      .set({
        ...(patch.name !== undefined && { name: patch.name }),
        ...(patch.description !== undefined && { description: patch.description }),
        ...(patch.settings !== undefined && { settings: toJson(patch.settings) }),
        ...(patch.issue_prefix !== undefined && { issue_prefix: patch.issue_prefix }),
        ...(patch.monthly_budget_usd !== undefined && { monthly_budget_usd: patch.monthly_budget_usd }),
        updated_at: now(),
      })
      .where("id", "=", workspaceId)
      .execute();
    if (changes.monthly_budget_usd) await workHooks().budgetChanged(trx, { workspaceId });
    await recordActivity(trx, {
      workspaceId,
      entityType: "workspace",
      entityId: workspaceId,
      actor,
      action: "workspace.updated",
      details: { changes },
    });
    return getWorkspace(trx, workspaceId);
  });
}

/**
 * Everything of the workspace goes with it. Its row is locked first, as its DELETE would: the workspace's writers,
 * which hold it first too (db/lock-order.ts), finish before, or find it gone after; none waits for the other halfway.
 */
export async function deleteWorkspace(db: Db, workspaceId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const workspace = await trx
      .selectFrom("workspaces")
      .select("id")
      .where("id", "=", workspaceId)
      .$if(isPostgres(trx), (query) => query.forUpdate())
      .executeTakeFirst();
    if (!workspace) return;
    await workHooks().workspaceDeleted(trx, { workspaceId });
    await trx.deleteFrom("workspaces").where("id", "=", workspaceId).execute();
  });
}
