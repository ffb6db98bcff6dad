// The issue list: filters, text search and paging, and the same page serialised to JSON by each SQL dialect.
import { type Expression, type RawBuilder, type SqlBool, sql } from "kysely";
import type { Page } from "../../api/pagination.ts";
import type { Db, SqlDialect } from "../../db/index.ts";
import { notFound } from "../../http/errors.ts";
import { type Issue, issueQuery, toIssue } from "./issue-row.ts";
import type { SharedPageBuilds } from "./page-builds.ts";
import type { IssuePageCache } from "./page-cache.ts";
import type { IssueFilters } from "./schemas.ts";

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

/** What a cached list needs: the page cache, the builds in progress, and the list version if already read. */
interface ListCaching {
  cache: IssuePageCache;
  builds: SharedPageBuilds;
  /** Read with the caller's membership (platform/access.ts), before any page is read. */
  version?: number;
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
  caching?: ListCaching,
): Promise<string> {
  const build = () => issuePageJson(db, dialect, workspaceId, options);
  if (!caching) return build();
  // The version is read before the page: a page stored under it is never older than it (see page-cache.ts).
  const version = caching.version ?? (await listVersion(db, workspaceId));
  const key = `${workspaceId} ${JSON.stringify(options)}`;
  const cached = caching.cache.get(key, version);
  if (cached !== undefined) return cached;
  const json = await caching.builds.run(key, version, build);
  caching.cache.set(key, version, json);
  return json;
}

async function listVersion(db: Db, workspaceId: string): Promise<number> {
  const workspace = await db
    .selectFrom("workspaces")
    .select("issue_list_version")
    .where("id", "=", workspaceId)
    .executeTakeFirst();
  if (!workspace) throw notFound("Workspace");
  return Number(workspace.issue_list_version);
}

async function issuePageJson(
  db: Db,
  dialect: SqlDialect,
  workspaceId: string,
  options: IssueFilters & Page,
): Promise<string> {
  const page = issuePage(db, workspaceId, options).as("page");
  const { json } = await db
    .selectFrom(page)
    .select(dialect === "sqlite" ? sqliteIssueArray : postgresIssueArray)
    .executeTakeFirstOrThrow();
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
  sql.lit("label_ids"),
  sql`json(page.label_ids)`,
])}), ',' order by page.position, page.created_at, page.id), '') || ']'`.as("json");

const postgresIssueArray = sql<string>`coalesce(json_agg(json_build_object(${pairs([
  sql.lit("identifier"),
  sql`page.issue_prefix || '-' || page.number`,
  sql.lit("acceptance_criteria"),
  sql`coalesce(page.acceptance_criteria, '[]')::json`,
  sql.lit("label_ids"),
  sql`page.label_ids::json`,
])}) order by page.position, page.created_at, page.id), '[]')::text`.as("json");
