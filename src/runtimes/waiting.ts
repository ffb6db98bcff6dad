// `waiting_for: "runtime"` (spec runtimes.md §3): a queued task of an agent bound to runtimes waits for one while no
// online runtime matches any of the agent's selectors.
import type { Db } from "../db/index.ts";
import type { TaskRow } from "../work/queue.ts";
import { onlineRuntimes } from "./claims.ts";
import { selectorsOf, waitsForRuntime } from "./pools.ts";

export async function tasksWaitingForRuntime(db: Db, workspaceId: string, rows: TaskRow[]): Promise<Set<string>> {
  const queued = rows.filter((row) => row.status === "queued");
  if (queued.length === 0) return new Set();
  const agents = await db
    .selectFrom("agents")
    .select(["id", "runtime_select"])
    .where("id", "in", [...new Set(queued.map((row) => row.agent_id))])
    .where("runtime_select", "is not", null)
    .execute();
  if (agents.length === 0) return new Set();
  const selectors = new Map(agents.map((agent) => [agent.id, selectorsOf(agent.runtime_select)]));
  const online = await onlineRuntimes(db, workspaceId);
  return new Set(
    queued
      .filter((row) => {
        const select = selectors.get(row.agent_id);
        return select !== undefined && waitsForRuntime(select, online);
      })
      .map((row) => row.id),
  );
}
