import type { Selectable } from "kysely";
// Reading the activity log: newest first, ties broken by id so paging never skips or repeats.

import { getInWorkspace } from "../../api/workspace-rows.ts";
import type { Db } from "../../db/index.ts";
import type { ActivityTable } from "../../db/schema.ts";
import { fromJson } from "../../db/values.ts";

type Activity = Omit<Selectable<ActivityTable>, "details"> & { details: Record<string, unknown> };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

// recordActivity always writes an object; anything else (a hand-edited row) is shown as no details.
const toActivity = (row: Selectable<ActivityTable>): Activity => {
  const details = fromJson<unknown>(row.details, {});
  return { ...row, details: isObject(details) ? details : {} };
};

const newestFirst = (db: Db, workspaceId: string) =>
  db
    .selectFrom("activity")
    .selectAll()
    .where("workspace_id", "=", workspaceId)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc");

export async function listWorkspaceActivity(
  db: Db,
  workspaceId: string,
  page: { limit: number; offset: number },
): Promise<Activity[]> {
  const rows = await newestFirst(db, workspaceId).limit(page.limit).offset(page.offset).execute();
  return rows.map(toActivity);
}

/** The activity of one issue of this workspace; an unknown issue, or one of another workspace, is a 404. */
export async function listIssueActivity(
  db: Db,
  workspaceId: string,
  issueId: string,
  page: { limit: number; offset: number },
): Promise<Activity[]> {
  await getInWorkspace(db, "issues", workspaceId, issueId, "Issue");
  const rows = await newestFirst(db, workspaceId)
    .where("issue_id", "=", issueId)
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map(toActivity);
}
