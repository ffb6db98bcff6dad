// An agent's status while it works, derived from the tables every process shares, never from memory: `working` while
// any task of it runs or any run of it outside the queue (agent UI, ask_<agent>: agent_live_runs) is in progress, else
// `idle`, or `error` after a final failure. Claims and status
// changes of one agent take turns (a transaction-scoped lock on PostgreSQL; SQLite runs one statement at a time), so
// the status written is always the one the committed tasks call for.
import { sql } from "kysely";
import type { AgentStatus } from "../db/enums.ts";
import { type Db, isPostgres } from "../db/index.ts";
import { now } from "../db/values.ts";
import { changeAgentStatus } from "../platform/agents/service.ts";
import { exhaustedBudget } from "../usage/budgets.ts";

/** Held until the transaction ends; take it after any task-row lock the transaction needs (one lock order). */
export async function lockAgentWork(trx: Db, agentId: string): Promise<void> {
  if (isPostgres(trx)) await sql`select pg_advisory_xact_lock(${agentWorkKey(agentId)})`.execute(trx);
}

/**
 * The same lock, taken only if no other transaction holds it (false then), never waited for: for a transaction that
 * takes several agents' locks (a runner's claim), since two such claims waiting for each other's would deadlock.
 */
export async function tryLockAgentWork(trx: Db, agentId: string): Promise<boolean> {
  if (!isPostgres(trx)) return true;
  const attempt = sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(${agentWorkKey(agentId)}) as locked`;
  const { rows } = await attempt.execute(trx);
  return rows[0]?.locked === true;
}

const agentWorkKey = (agentId: string) => sql`hashtext(${`agent-work:${agentId}`})`;

/** The agent with the number of its running tasks, read after lockAgentWork (the count then stays true). */
export function agentWithRunningTasks(trx: Db, agentId: string) {
  return trx
    .selectFrom("agents")
    .selectAll()
    .select((eb) =>
      eb
        .selectFrom("tasks")
        .select(eb.fn.countAll<number>().as("count"))
        .where("tasks.agent_id", "=", agentId)
        .where("tasks.status", "=", "running")
        .as("running_tasks"),
    )
    .where("id", "=", agentId)
    .executeTakeFirst();
}

/**
 * The agent's status, and its tasks running and runs in progress outside the queue (agent UI, ask_<agent>), in one
 * query; status undefined when there is no such agent.
 */
async function workState(trx: Db, agentId: string): Promise<{ busy: number; status: AgentStatus | undefined }> {
  const { rows } = await sql<{ busy: number | string; status: AgentStatus | null }>`
    select (select status from agents where id = ${agentId}) as status,
      (select count(*) from tasks where agent_id = ${agentId} and status = 'running')
      + (select count(*) from agent_live_runs where agent_id = ${agentId} and expires_at > ${now()}) as busy`.execute(
    trx,
  );
  return { busy: Number(rows[0]?.busy ?? 0), status: rows[0]?.status ?? undefined };
}

/** Inside `trx`: sets the agent's status from its running tasks and its budget, as the agent itself (so activity says so). */
export async function syncAgentStatus(
  trx: Db,
  agent: { id: string; workspaceId: string },
  failedFinally = false,
): Promise<void> {
  await lockAgentWork(trx, agent.id);
  const { busy, status: before } = await workState(trx, agent.id);
  if (before === undefined) return;
  const status =
    busy > 0
      ? "working"
      : failedFinally
        ? "error"
        : (await exhaustedBudget(trx, agent.workspaceId, agent.id))
          ? "blocked"
          : "idle";
  await changeAgentStatus(trx, agent.workspaceId, agent.id, status, { type: "agent", id: agent.id }, before);
}
