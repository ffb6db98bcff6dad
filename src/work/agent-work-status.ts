// An agent's status while it works, derived from the tables every process shares, never from memory: `working` while
// any task of it runs or any run of it outside the queue (agent UI, ask_<agent>: agent_live_runs) is in progress, else
// `idle`, or `error` after a final failure. Claims and status
// changes of one agent take turns (a transaction-scoped lock on PostgreSQL; SQLite runs one statement at a time), so
// the status written is always the one the committed tasks call for.
import { sql } from "kysely";
import { liveRunCount } from "../agents/agent-status.ts";
import { type Db, isPostgres } from "../db/index.ts";
import { changeAgentStatus } from "../platform/agents/service.ts";

/** Held until the transaction ends; take it after any task-row lock the transaction needs (one lock order). */
export async function lockAgentWork(trx: Db, agentId: string): Promise<void> {
  if (isPostgres(trx)) await sql`select pg_advisory_xact_lock(hashtext(${`agent-work:${agentId}`}))`.execute(trx);
}

export async function runningTaskCount(trx: Db, agentId: string): Promise<number> {
  const row = await trx
    .selectFrom("tasks")
    .select((eb) => eb.fn.countAll().as("running"))
    .where("agent_id", "=", agentId)
    .where("status", "=", "running")
    .executeTakeFirst();
  return Number(row?.running ?? 0);
}

/** Inside `trx`: sets the agent's status from its running tasks, as the agent itself (so activity says so). */
export async function syncAgentStatus(
  trx: Db,
  agent: { id: string; workspaceId: string },
  failedFinally = false,
): Promise<void> {
  await lockAgentWork(trx, agent.id);
  const running = (await runningTaskCount(trx, agent.id)) + (await liveRunCount(trx, agent.id));
  const status = running > 0 ? "working" : failedFinally ? "error" : "idle";
  await changeAgentStatus(trx, agent.workspaceId, agent.id, status, { type: "agent", id: agent.id });
}

/**
 * In a transaction of its own: `working` when a task or a live run of the agent is in progress by now. Written beside
 * a claimed run's start rather than in the claim's transaction, so the run's first model request does not wait for
 * it; it only ever moves the status to `working`, so landing after the task already ended changes nothing.
 */
export async function markAgentWorking(db: Db, agent: { id: string; workspaceId: string }): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await lockAgentWork(trx, agent.id);
    const running = (await runningTaskCount(trx, agent.id)) + (await liveRunCount(trx, agent.id));
    if (running > 0)
      await changeAgentStatus(trx, agent.workspaceId, agent.id, "working", { type: "agent", id: agent.id });
  });
}
