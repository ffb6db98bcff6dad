import type { Db } from "../../db/index.ts";

/**
 * Marks the workspace's issue list pages as changed. Call it inside the transaction of every change that can alter
 * what an issue list shows (an issue's fields, its labels, the workspace's issue prefix), so the new version and the
 * change become visible together, on every instance sharing the database.
 */
export async function bumpIssueListVersion(db: Db, workspaceId: string): Promise<void> {
  await db
    .updateTable("workspaces")
    .set((eb) => ({ issue_list_version: eb("issue_list_version", "+", 1) }))
    .where("id", "=", workspaceId)
    .execute();
}
