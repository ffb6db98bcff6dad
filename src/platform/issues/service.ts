import { type Expression, type RawBuilder, type SqlBool, sql } from "kysely";
import type { z } from "zod";
import { hasRole, type Role } from "../../auth/membership.ts";
import type { Db, SqlDialect } from "../../db/index.ts";
import type { IssuesTable } from "../../db/schema.ts";
import { fromJson, isId, newId, now, toJson } from "../../db/values.ts";
import { forbidden, invalid, notFound } from "../../http/errors.ts";
import type { Actor } from "../access.ts";
import { diffFields, recordActivity } from "../activity/record.ts";
import { parseInput } from "../fields.ts";
import type { Page } from "../pagination.ts";
import { getProject } from "../projects/service.ts";
import { patchActorRef } from "../references.ts";
import { bumpIssueListVersion } from "./list-version.ts";
import type { IssuePageCache } from "./page-cache.ts";
import {
  type CreateIssueInput,
  createIssueBody,
  type IssueFilters,
  type issueSchema,
  type UpdateIssuePatch,
  updateIssueBody,
} from "./schemas.ts";

export type Issue = z.infer<typeof issueSchema>;

type IssueRow = IssuesTable & { issue_prefix: string };

const toIssue = ({ issue_prefix, ...row }: IssueRow): Issue => ({
  ...(row as Omit<Issue, "identifier" | "acceptance_criteria" | "position" | "number">),
  number: Number(row.number),
  position: Number(row.position),
  identifier: `${issue_prefix}-${row.number}`,
  acceptance_criteria: fromJson<string[]>(row.acceptance_criteria, []),
});

const issueQuery = (db: Db, workspaceId: string) =>
  db
    .selectFrom("issues")
    .innerJoin("workspaces", "workspaces.id", "issues.workspace_id")
    .selectAll("issues")
    .select("workspaces.issue_prefix")
    .where("issues.workspace_id", "=", workspaceId);

/** The issue, if it is of this workspace; otherwise 404 "<thing> not found". */
export async function getIssue(db: Db, workspaceId: string, issueId: string, thing = "Issue"): Promise<Issue> {
  const row = isId(issueId)
    ? await issueQuery(db, workspaceId).where("issues.id", "=", issueId).executeTakeFirst()
    : undefined;
  if (!row) throw notFound(thing);
  return toIssue(row);
}

/** NUL replaced by U+FFFD: stored text holds no NUL, so no match changes, and PostgreSQL accepts the parameter. */
const storable = (value: string) => (value.includes("\u0000") ? value.replaceAll("\u0000", "\uFFFD") : value);

/** `%`, `_` and the escape character itself match literally. */
const likePattern = (needle: string) => `%${needle.toLowerCase().replace(/[!%_]/g, (char) => `!${char}`)}%`;

/** The issues of one page of the list: filters, search, then order position, created_at, id. */
function issuePage(db: Db, workspaceId: string, options: IssueFilters & Page) {
  let query = issueQuery(db, workspaceId);
  const exact = [
    ["status", options.status],
    ["priority", options.priority],
    ["assignee_type", options.assignee_type],
    ["project_id", options.project_id],
    ["assignee_id", options.assignee_id],
    ["creator_id", options.creator_id],
    ["parent_issue_id", options.parent_issue_id],
  ] as const;
  for (const [column, values] of exact) {
    // Values no column can hold (a NUL, which PostgreSQL refuses outright) match nothing; the route's schema refuses
    // them earlier, this keeps other callers (tools) safe.
    if (values && values.length > 0) query = query.where(`issues.${column}`, "in", values.map(storable));
  }
  const labelIds = options.label_id;
  if (labelIds && labelIds.length > 0) {
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom("issue_labels")
          .select("issue_labels.issue_id")
          .whereRef("issue_labels.issue_id", "=", "issues.id")
          .where("issue_labels.label_id", "in", labelIds.map(storable)),
      ),
    );
  }
  const needle = options.q === undefined ? undefined : storable(options.q).trim();
  if (needle) {
    const pattern = likePattern(needle);
    const like = (expression: Expression<unknown>) => sql<SqlBool>`lower(${expression}) like ${pattern} escape '!'`;
    query = query.where((eb) =>
      eb.or([
        like(sql.ref("issues.title")),
        like(sql.ref("issues.description")),
        like(sql`workspaces.issue_prefix || '-' || cast(issues.number as text)`),
      ]),
    );
  }
  return query
    .orderBy("issues.position")
    .orderBy("issues.created_at")
    .orderBy("issues.id")
    .limit(options.limit)
    .offset(options.offset);
}

export async function listIssues(db: Db, workspaceId: string, options: IssueFilters & Page): Promise<Issue[]> {
  return (await issuePage(db, workspaceId, options).execute()).map(toIssue);
}

/**
 * The same page as `listIssues`, serialised to a JSON array by the database itself. Turning 50 rows of 19 columns
 * into JavaScript objects and back costs more than the rest of the request; this returns one string instead.
 */
export async function listIssuesJson(
  db: Db,
  dialect: SqlDialect,
  workspaceId: string,
  options: IssueFilters & Page,
  cache?: IssuePageCache,
): Promise<string> {
  // The version is read before the page: a page stored under it is never older than it (see page-cache.ts).
  const workspace = await db
    .selectFrom("workspaces")
    .select("issue_list_version")
    .where("id", "=", workspaceId)
    .executeTakeFirst();
  if (!workspace) throw notFound("Workspace");
  const key = `${workspaceId} ${JSON.stringify(options)}`;
  const cached = cache?.get(key, workspace.issue_list_version);
  if (cached !== undefined) return cached;
  const page = issuePage(db, workspaceId, options).as("page");
  const { json } = await db
    .selectFrom(page)
    .select(dialect === "sqlite" ? sqliteIssueArray : postgresIssueArray)
    .executeTakeFirstOrThrow();
  cache?.set(key, workspace.issue_list_version, json);
  return json;
}

const ISSUE_COLUMNS = [
  "id",
  "workspace_id",
  "project_id",
  "title",
  "description",
  "status",
  "priority",
  "assignee_type",
  "assignee_id",
  "creator_type",
  "creator_id",
  "number",
  "parent_issue_id",
  "position",
  "due_date",
  "created_at",
  "updated_at",
] as const;

const pairs = (extra: RawBuilder<unknown>[]) =>
  sql.join([...ISSUE_COLUMNS.flatMap((column) => [sql.lit(column), sql.ref(`page.${column}`)]), ...extra]);

// group_concat of json_object texts (json_group_array re-checks every element and takes twice as long), in the
// list's order: an aggregate's order is only guaranteed when it says so.
const sqliteIssueArray = sql<string>`'[' || coalesce(group_concat(json_object(${pairs([
  sql.lit("identifier"),
  sql`page.issue_prefix || '-' || page.number`,
  sql.lit("acceptance_criteria"),
  sql`json(coalesce(page.acceptance_criteria, '[]'))`,
])}), ',' order by page.position, page.created_at, page.id), '') || ']'`.as("json");

const postgresIssueArray = sql<string>`coalesce(json_agg(json_build_object(${pairs([
  sql.lit("identifier"),
  sql`page.issue_prefix || '-' || page.number`,
  sql.lit("acceptance_criteria"),
  sql`coalesce(page.acceptance_criteria, '[]')::json`,
])}) order by page.position, page.created_at, page.id), '[]')::text`.as("json");

/** A parent must be another issue of this workspace, and not one of the issue's own descendants. */
async function checkParent(db: Db, workspaceId: string, parentId: string, issueId?: string): Promise<void> {
  if (parentId === issueId) throw invalid(["body", "parent_issue_id"], "An issue cannot be its own parent");
  let ancestor: string | null = (await getIssue(db, workspaceId, parentId, "Parent issue")).parent_issue_id;
  if (issueId === undefined) return;
  for (let depth = 0; ancestor !== null && depth < 10_000; depth++) {
    if (ancestor === issueId) {
      throw invalid(["body", "parent_issue_id"], "The parent issue is a sub-issue of this issue (cycle)");
    }
    const row = await db.selectFrom("issues").select("parent_issue_id").where("id", "=", ancestor).executeTakeFirst();
    ancestor = row?.parent_issue_id ?? null;
  }
}

export async function createIssue(db: Db, workspaceId: string, input: CreateIssueInput, actor: Actor): Promise<Issue> {
  const body = parseInput(createIssueBody, input);
  return db.transaction().execute(async (trx) => {
    if (body.project_id) await getProject(trx, workspaceId, body.project_id);
    if (body.parent_issue_id) await checkParent(trx, workspaceId, body.parent_issue_id);
    const assignee = await patchActorRef(
      trx,
      workspaceId,
      "assignee",
      { type: null, id: null },
      {
        type: body.assignee_type,
        id: body.assignee_id,
      },
    );
    // The row lock of this UPDATE serialises concurrent creates in one workspace: numbers never repeat or skip.
    const counter = await trx
      .updateTable("workspaces")
      .set((eb) => ({
        issue_counter: eb("issue_counter", "+", 1),
        issue_list_version: eb("issue_list_version", "+", 1),
      }))
      .where("id", "=", workspaceId)
      .returning(["issue_counter", "issue_prefix"])
      .executeTakeFirst();
    if (!counter) throw notFound("Workspace");
    const at = now();
    const row: IssuesTable = {
      id: newId(),
      workspace_id: workspaceId,
      project_id: body.project_id ?? null,
      title: body.title,
      description: body.description ?? null,
      status: body.status,
      priority: body.priority,
      assignee_type: assignee.type,
      assignee_id: assignee.id,
      creator_type: actor.type,
      creator_id: actor.id,
      number: Number(counter.issue_counter),
      parent_issue_id: body.parent_issue_id ?? null,
      acceptance_criteria: toJson(body.acceptance_criteria ?? []),
      position: body.position ?? 0,
      due_date: body.due_date ?? null,
      created_at: at,
      updated_at: at,
    };
    await trx.insertInto("issues").values(row).execute();
    const issue = toIssue({ ...row, issue_prefix: counter.issue_prefix });
    await recordActivity(trx, {
      workspaceId,
      entityType: "issue",
      entityId: issue.id,
      issueId: issue.id,
      actor,
      action: "issue.created",
      details: { title: issue.title, identifier: issue.identifier },
    });
    return issue;
  });
}

/** Any member may edit an issue. Records `issue.updated` with `details.changes` when something changed. */
export async function updateIssue(
  db: Db,
  workspaceId: string,
  issueId: string,
  patch: UpdateIssuePatch,
  actor: Actor,
): Promise<Issue> {
  const body = parseInput(updateIssueBody, patch);
  return db.transaction().execute(async (trx) => {
    const before = await getIssue(trx, workspaceId, issueId);
    if (body.project_id) await getProject(trx, workspaceId, body.project_id);
    if (body.parent_issue_id) await checkParent(trx, workspaceId, body.parent_issue_id, before.id);
    const assignee = await patchActorRef(
      trx,
      workspaceId,
      "assignee",
      { type: before.assignee_type, id: before.assignee_id },
      { type: body.assignee_type, id: body.assignee_id },
    );
    const next: Partial<Issue> = {
      ...(body.title !== undefined && { title: body.title }),
      ...(body.description !== undefined && { description: body.description }),
      ...(body.project_id !== undefined && { project_id: body.project_id }),
      ...(body.status !== undefined && { status: body.status }),
      ...(body.priority !== undefined && { priority: body.priority }),
      ...(body.parent_issue_id !== undefined && { parent_issue_id: body.parent_issue_id }),
      ...(body.acceptance_criteria !== undefined && { acceptance_criteria: body.acceptance_criteria ?? [] }),
      ...(body.position !== undefined && { position: body.position }),
      ...(body.due_date !== undefined && { due_date: body.due_date }),
      assignee_type: assignee.type,
      assignee_id: assignee.id,
    };
    const changes = diffFields(before, next);
    if (Object.keys(changes).length === 0) return before;
    const updated_at = now();
    const { acceptance_criteria, ...columns } = next;
    await bumpIssueListVersion(trx, workspaceId);
    await trx
      .updateTable("issues")
      .set({
        ...columns,
        ...(acceptance_criteria !== undefined && { acceptance_criteria: toJson(acceptance_criteria) }),
        updated_at,
      })
      .where("id", "=", before.id)
      .execute();
    await recordActivity(trx, {
      workspaceId,
      entityType: "issue",
      entityId: before.id,
      issueId: before.id,
      actor,
      action: "issue.updated",
      details: { identifier: before.identifier, changes },
    });
    return { ...before, ...next, updated_at };
  });
}

export const isCreatorOf = (issue: Issue, actor: Actor): boolean =>
  issue.creator_type === actor.type && issue.creator_id === actor.id;

/**
 * Admins and the issue's creator may delete it. Its comments, label links and dependencies go with it;
 * its sub-issues stay, without a parent.
 */
export async function deleteIssue(
  db: Db,
  workspaceId: string,
  issueId: string,
  actor: Actor,
  role: Role,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const issue = await getIssue(trx, workspaceId, issueId);
    if (!hasRole(role, "admin") && !isCreatorOf(issue, actor)) {
      throw forbidden("Only an admin or the issue's creator may delete it");
    }
    await bumpIssueListVersion(trx, workspaceId);
    await trx.updateTable("issues").set({ parent_issue_id: null }).where("parent_issue_id", "=", issue.id).execute();
    await trx.deleteFrom("comments").where("issue_id", "=", issue.id).execute();
    await trx.deleteFrom("issue_labels").where("issue_id", "=", issue.id).execute();
    await trx
      .deleteFrom("issue_dependencies")
      .where((eb) => eb.or([eb("issue_id", "=", issue.id), eb("depends_on_issue_id", "=", issue.id)]))
      .execute();
    await trx.deleteFrom("issues").where("id", "=", issue.id).execute();
    await recordActivity(trx, {
      workspaceId,
      entityType: "issue",
      entityId: issue.id,
      issueId: issue.id,
      actor,
      action: "issue.deleted",
      details: { title: issue.title, identifier: issue.identifier },
    });
  });
}
