// Rows that belong to one workspace, read by id or listed a page at a time (IDOR rule: another workspace's id is
// "not found").
import { type Selectable, sql } from "kysely";
import { type Db, isPostgres } from "../db/index.ts";
import type { Database } from "../db/schema.ts";
import { isId } from "../db/values.ts";
import { notFound } from "../http/errors.ts";
import type { Page } from "./pagination.ts";

/** Tables whose rows belong to one workspace and are named by their id. */
type WorkspaceTable =
  | "issues"
  | "agents"
  | "projects"
  | "labels"
  | "api_keys"
  | "webhooks"
  | "autopilots"
  | "skills"
  | "runner_tokens"
  | "approvals"
  | "questions";

/**
 * The row with this id, if it belongs to this workspace; otherwise 404 "<thing> not found". `delete` (PostgreSQL, in a
 * transaction) locks it as deleting it would, until commit.
 */
export async function getInWorkspace<T extends WorkspaceTable>(
  db: Db,
  table: T,
  workspaceId: string,
  id: string,
  thing: string,
  lock?: "delete",
): Promise<Selectable<Database[T]>> {
  const row = isId(id)
    ? await db
        .selectFrom(table as WorkspaceTable)
        .selectAll()
        .where("workspace_id", "=", workspaceId)
        .where("id", "=", id)
        .$if(lock === "delete" && db.isTransaction && isPostgres(db), (query) => query.forUpdate())
        .executeTakeFirst()
    : undefined;
  if (!row) throw notFound(thing);
  return row as Selectable<Database[T]>;
}

/** A page of the workspace's rows, oldest first (or by `name`), then by id. */
export async function listInWorkspace<T extends WorkspaceTable>(
  db: Db,
  table: T,
  workspaceId: string,
  page: Page,
  order: "created_at" | "name" = "created_at",
): Promise<Selectable<Database[T]>[]> {
  const rows = await db
    .selectFrom(table as WorkspaceTable)
    .selectAll()
    .where("workspace_id", "=", workspaceId)
    .orderBy(sql.ref(order))
    .orderBy("id")
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows as Selectable<Database[T]>[];
}

/** Tables of requests that people decide (approvals, questions), listed newest first by their status. */
type DecisionTable = "approvals" | "questions";

/** A page of the workspace's approvals or questions, newest first, of the given statuses (all when none). */
export async function listNewestInWorkspace<T extends DecisionTable>(
  db: Db,
  table: T,
  workspaceId: string,
  statuses: readonly string[] | undefined,
  page: Page,
): Promise<Selectable<Database[T]>[]> {
  const rows = await db
    .selectFrom(table as DecisionTable)
    .selectAll()
    .where("workspace_id", "=", workspaceId)
    .$if(Boolean(statuses?.length), (query) => query.where("status", "in", statuses as never))
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows as Selectable<Database[T]>[];
}
