// The transaction of a change to a workspace's rows: its workspace row is held first (db/lock-order.ts), so the change
// and a deletion of the workspace (or of the agent or webhook named) run one after the other, never into a deadlock.
import type { Db } from "../db/index.ts";
import { type HeldParent, holdWorkspace } from "../db/lock-order.ts";
import { notFound } from "../http/errors.ts";

/**
 * Runs `work` in a transaction that holds the workspace (and `parent`) first: 404 "Workspace not found" (or the
 * agent's, or the webhook's) when it was deleted meanwhile. Given a caller's transaction, runs `work` in it as it is:
 * that transaction has taken its locks in its own order.
 */
export async function inWorkspace<T>(
  db: Db,
  workspaceId: string,
  work: (trx: Db) => Promise<T>,
  parent?: HeldParent,
): Promise<T> {
  if (db.isTransaction) return work(db);
  return db.transaction().execute(async (trx) => {
    if (!(await holdWorkspace(trx, workspaceId, parent))) {
      throw notFound(!parent ? "Workspace" : "agentId" in parent ? "Agent" : "Webhook");
    }
    return work(trx);
  });
}
