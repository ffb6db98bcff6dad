// One lock order for everything written below a workspace, so that a delete never deadlocks with work in progress.
// A delete locks the row it deletes and then, cascading, the rows below it: a workspace's DELETE locks the workspace
// row first, an agent's or a webhook's its own row. A writer that locks from the top down too (the workspace row, then
// the agent or webhook it writes for, then its own rows) meets a delete at the first row they share: one waits for
// the other to commit, never each for the other. Whichever comes second sees the outcome: a delete takes what the
// writer added with it, a writer finds its rows gone and ends its work.
// The writers' lock is KEY SHARE: it holds no writer up (nor an UPDATE of the row), only a delete, and a delete them.
import type { Db } from "./index.ts";
import { isPostgres } from "./index.ts";

/** The row below the workspace that a writer works for, when it is one a delete can take away mid-work. */
export type HeldParent = { agentId: string } | { webhookId: string };

/**
 * Takes, first in `trx`, the workspace row's lock and then the agent's or webhook's (PostgreSQL), each held until
 * commit. False when one of them is gone, deleted before or while this waited: the writer's work has ended with it.
 * SQLite runs one transaction at a time, so there it only asks whether they exist.
 */
export async function holdWorkspace(trx: Db, workspaceId: string, parent?: HeldParent): Promise<boolean> {
  if (holds(trx, workspaceId, parent)) return true;
  const held = await lockTopDown(trx, workspaceId, parent);
  if (held) noteHeld(trx, workspaceId, parent);
  return held;
}

/**
 * What each transaction holds already: a row held stays until commit, so asking again (a fire holds the agent, then
 * queues its task, which asks too) needs no second round trip. Only holds are noted; a transaction that deletes a
 * row it held asks for it no more.
 */
const heldIn = new WeakMap<Db, Set<string>>();

const heldKey = (workspaceId: string, parent?: HeldParent): string =>
  !parent
    ? workspaceId
    : "agentId" in parent
      ? `${workspaceId}/agent/${parent.agentId}`
      : `${workspaceId}/webhook/${parent.webhookId}`;

/** True when `trx` holds the workspace (and the parent) already: the rows exist until it commits. */
export const holds = (trx: Db, workspaceId: string, parent?: HeldParent): boolean =>
  heldIn.get(trx)?.has(heldKey(workspaceId, parent)) ?? false;

/** Notes that `trx` holds the workspace (and the parent) the way holdWorkspace would, by a statement of its own. */
export function noteHeld(trx: Db, workspaceId: string, parent?: HeldParent): void {
  // Outside a transaction a lock ends with its statement: nothing is held.
  if (!trx.isTransaction) return;
  const held = heldIn.get(trx) ?? new Set<string>();
  held.add(heldKey(workspaceId));
  if (parent) held.add(heldKey(workspaceId, parent));
  heldIn.set(trx, held);
}

async function lockTopDown(trx: Db, workspaceId: string, parent?: HeldParent): Promise<boolean> {
  const postgres = isPostgres(trx);
  if (!parent) {
    const workspace = await trx
      .selectFrom("workspaces")
      .select("id")
      .where("id", "=", workspaceId)
      .$if(postgres, (query) => query.forKeyShare())
      .executeTakeFirst();
    return workspace !== undefined;
  }
  const [table, id] =
    "agentId" in parent ? (["agents", parent.agentId] as const) : (["webhooks", parent.webhookId] as const);
  // The workspace is locked in a CTE, which runs (PostgreSQL never inlines a locking one) before the outer lock can
  // take the row it joins to: top down, in one round trip.
  const row = await trx
    .with("workspace", (db) =>
      db
        .selectFrom("workspaces")
        .select("id")
        .where("id", "=", workspaceId)
        .$if(postgres, (query) => query.forKeyShare()),
    )
    .selectFrom(table)
    .innerJoin("workspace", "workspace.id", `${table}.workspace_id`)
    .select(`${table}.id`)
    .where(`${table}.id`, "=", id)
    .$if(postgres, (query) => query.forKeyShare(table))
    .executeTakeFirst();
  return row !== undefined;
}
