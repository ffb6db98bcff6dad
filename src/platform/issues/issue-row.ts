// An issue as the API shows it, read from its row and its workspace's prefix.
import { type Selectable, sql } from "kysely";
import type { z } from "zod";
import { type Db, isPostgres } from "../../db/index.ts";
import type { IssuesTable } from "../../db/schema.ts";
import { fromJson, type JsonText } from "../../db/values.ts";
import type { issueSchema } from "./schemas.ts";

export type Issue = z.infer<typeof issueSchema>;

/** `label_ids`: the ids of the labels linked to the issue (absent on a row just inserted). */
export type IssueRow = Selectable<IssuesTable> & { issue_prefix: string; label_ids?: JsonText<string[]> };

export const toIssue = ({ issue_prefix, label_ids, ...row }: IssueRow): Issue => ({
  ...row,
  number: Number(row.number),
  position: Number(row.position),
  identifier: `${issue_prefix}-${row.number}`,
  acceptance_criteria: fromJson<string[]>(row.acceptance_criteria, []),
  label_ids: fromJson<string[]>(label_ids ?? null, []),
});

/** The issue's label ids as a JSON array text, in id order, read beside the issue (one statement, both databases). */
const labelIdsJson = (db: Db) =>
  isPostgres(db)
    ? sql<
        JsonText<string[]>
      >`(select coalesce(json_agg(issue_labels.label_id order by issue_labels.label_id), '[]'::json)::text
        from issue_labels where issue_labels.issue_id = issues.id)`
    : sql<JsonText<string[]>>`(select json_group_array(issue_labels.label_id order by issue_labels.label_id)
        from issue_labels where issue_labels.issue_id = issues.id)`;

export const issueQuery = (db: Db, workspaceId: string) =>
  db
    .selectFrom("issues")
    .innerJoin("workspaces", "workspaces.id", "issues.workspace_id")
    .selectAll("issues")
    .select("workspaces.issue_prefix")
    .select(labelIdsJson(db).as("label_ids"))
    .where("issues.workspace_id", "=", workspaceId);

/**
 * The same read, for a transaction that does not hold the workspace yet (db/lock-order.ts): its row's KEY SHARE lock
 * is taken in a CTE, which runs before the issue's own lock can be taken, so the two are held top down in one round
 * trip (PostgreSQL; the caller adds the issue's lock).
 */
export const issueQueryHoldingWorkspace = (db: Db, workspaceId: string) =>
  db
    .with("held_workspace", (query) =>
      query.selectFrom("workspaces").select(["id", "issue_prefix"]).where("id", "=", workspaceId).forKeyShare(),
    )
    .selectFrom("issues")
    .innerJoin("held_workspace", "held_workspace.id", "issues.workspace_id")
    .selectAll("issues")
    .select("held_workspace.issue_prefix")
    .select(labelIdsJson(db).as("label_ids"))
    .where("issues.workspace_id", "=", workspaceId);
