// Issue list pages are cached under the workspace's issue list version (page-cache.ts). Every change that can alter
// what an issue list shows (an issue's fields, its labels, a project or label going away, the issue prefix) runs
// through `changingIssueLists`: the one place the version is bumped, so no writer can forget it.
import type { QueryCreator } from "kysely";
import type { Db } from "../../db/index.ts";
import type { Database } from "../../db/schema.ts";
import { notFound } from "../../http/errors.ts";

/**
 * Runs `work` in a transaction whose first statement bumps the workspace's issue list version: the new version and
 * the change become visible together, on every instance sharing the database. Bumping first also takes the workspace
 * row's lock before any other, so the writers of one workspace queue up in one order (no deadlocks between them) and
 * each checks what it depends on (a project, a parent, a label) only after the writers before it committed.
 */
export function changingIssueLists<T>(db: Db, workspaceId: string, work: (trx: Db) => Promise<T>): Promise<T> {
  // Given a caller's transaction (an autopilot's fire), the bump is its next statement there.
  if (db.isTransaction) return bumpThen(db, workspaceId, work);
  return db.transaction().execute((trx) => bumpThen(trx, workspaceId, work));
}

/** Transactions that bumped already: a change nested in another (an autopilot's fire creating an issue) bumps once. */
const bumpedIn = new WeakMap<Db, Set<string>>();

/**
 * The bump itself, for a transaction that takes it in a statement of its own making (an autopilot's fire bumps and
 * locks what it fires for in one round trip); it then calls `noteBumped`, and the changes nested in it bump no more.
 */
export const issueListBump = (db: QueryCreator<Database>, workspaceId: string) =>
  db
    .updateTable("workspaces")
    .set((eb) => ({ issue_list_version: eb("issue_list_version", "+", 1) }))
    .where("id", "=", workspaceId);

export const hasBumped = (trx: Db, workspaceId: string): boolean => bumpedIn.get(trx)?.has(workspaceId) ?? false;

export function noteBumped(trx: Db, workspaceId: string): void {
  bumpedIn.set(trx, (bumpedIn.get(trx) ?? new Set<string>()).add(workspaceId));
}

async function bumpThen<T>(trx: Db, workspaceId: string, work: (trx: Db) => Promise<T>): Promise<T> {
  if (hasBumped(trx, workspaceId)) return work(trx);
  const bumped = await issueListBump(trx, workspaceId).executeTakeFirst();
  // Deleted meanwhile: the workspace's deletion took its row's lock first (db/lock-order.ts), and committed.
  if (Number(bumped.numUpdatedRows) === 0) throw notFound("Workspace");
  noteBumped(trx, workspaceId);
  return work(trx);
}
