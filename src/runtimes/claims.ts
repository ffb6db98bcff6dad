// A runner's claim: from the same queue as the in-process worker (work/leases.ts: SELECT … FOR UPDATE SKIP LOCKED,
// urgent first then oldest, the agent's max_concurrent_tasks counted under its lock), only tasks of agents bound to
// runtimes, each given to one of the runner's runtimes by the agent's pools (pools.ts) within that runtime's own
// max_concurrent_tasks. Each claimed task gets a new run and a new task token (only its hash is kept).
import type { Selectable } from "kysely";
import { generateTaskToken } from "../auth/runner-credentials.ts";
import type { Db } from "../db/index.ts";
import type { AgentsTable, RunnersTable } from "../db/schema.ts";
import { fromJson, now } from "../db/values.ts";
import { tryLockAgentWork } from "../work/agent-work-status.ts";
import { agentWithRoom, claimCandidates, startTask, walkQueueInOrder } from "../work/leases.ts";
import type { TaskRow } from "../work/queue.ts";
import { announce } from "../work/signals.ts";
import { chooseRuntime, type PoolRuntime, selectorsOf } from "./pools.ts";
import { leaseOwnerOf, runningTasksOfRuntime } from "./runners.ts";

export interface ClaimLimits {
  leaseMs: number;
  maxAttempts: number;
}

export interface RunnerClaim {
  task: TaskRow;
  agent: Selectable<AgentsTable>;
  runId: string;
  runtime: PoolRuntime & { name: string };
  /** The task token, known only here and to the runner. */
  token: string;
}

/** The workspace's online runtimes with the tasks each runs. */
export async function onlineRuntimes(
  db: Db,
  workspaceId: string,
): Promise<(PoolRuntime & { name: string; runnerId: string })[]> {
  const rows = await db
    .selectFrom("runtimes")
    .select([
      "runtimes.id",
      "runtimes.name",
      "runtimes.kind",
      "runtimes.tags",
      "runtimes.runner_id",
      "runtimes.max_concurrent_tasks",
    ])
    .select(runningTasksOfRuntime)
    .where("runtimes.workspace_id", "=", workspaceId)
    .where("runtimes.status", "=", "online")
    .execute();
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    kind: row.kind,
    runnerId: row.runner_id,
    tags: fromJson<string[]>(row.tags, []),
    maxConcurrentTasks: Number(row.max_concurrent_tasks),
    runningTasks: Number(row.running_tasks ?? 0),
  }));
}

/**
 * Claims up to `maxTasks` tasks for `runner`'s runtimes `runtimeIds` (all of its online ones when empty), in one
 * transaction. `claims` is empty when none is claimable now; `passedBy` says some candidate's agent was locked by
 * another transaction (a claim or a report of that agent, about to commit): worth looking again at once.
 */
export async function claimForRunner(
  db: Db,
  runner: RunnersTable,
  runtimeIds: string[] | undefined,
  maxTasks: number,
  limits: ClaimLimits,
): Promise<{ claims: RunnerClaim[]; passedBy: boolean }> {
  return db.transaction().execute(async (trx) => {
    const at = now();
    const online = await onlineRuntimes(trx, runner.workspace_id);
    const wanted = runtimeIds?.length ? new Set(runtimeIds) : undefined;
    const ours = new Set(
      online
        .filter((runtime) => runtime.runnerId === runner.id && (wanted === undefined || wanted.has(runtime.id)))
        .map((runtime) => runtime.id),
    );
    if (ours.size === 0) return { claims: [], passedBy: false };
    await walkQueueInOrder(trx);
    const candidates = await claimCandidates(trx, at, Math.max(16, maxTasks * 4))
      .select(["tasks.id", "tasks.agent_id", "agents.runtime_select"])
      .where("tasks.status", "=", "queued")
      .where("tasks.workspace_id", "=", runner.workspace_id)
      .where("agents.runtime_select", "is not", null)
      .execute();
    const claimed: RunnerClaim[] = [];
    let passedBy = false;
    for (const candidate of candidates) {
      if (claimed.length >= maxTasks) break;
      const runtime = chooseRuntime(selectorsOf(candidate.runtime_select), online, ours);
      if (!runtime) continue;
      // Several agents' locks in one transaction, in the candidates' order: never waited for, or two claims could
      // each hold one the other waits for (a deadlock). One held elsewhere is passed by, as a locked task is.
      if (!(await tryLockAgentWork(trx, candidate.agent_id))) {
        passedBy = true;
        continue;
      }
      const agent = await agentWithRoom(trx, candidate.agent_id, true);
      if (!agent) continue;
      const { token, hash } = generateTaskToken();
      const name = online.find((each) => each.id === runtime.id)?.name ?? runtime.kind;
      const owner = leaseOwnerOf(runner.id);
      const started = await startTask(
        trx,
        { id: candidate.id, resume: 0 },
        agent,
        { owner, leaseMs: limits.leaseMs, maxAttempts: limits.maxAttempts, defaultModel: "" },
        { runtimeId: runtime.id, tokenHash: hash, model: `${runtime.kind}:${name}` },
      );
      runtime.runningTasks++;
      const hold = {
        runner_id: runner.id,
        run_id: started.runId,
        input_version: Number(started.task.input_version),
        ended: null,
        claimed_at: at,
      };
      await trx
        .insertInto("runner_claims")
        .values({ task_id: candidate.id, ...hold })
        .onConflict((conflict) => conflict.column("task_id").doUpdateSet(hold))
        .execute();
      claimed.push({ task: started.task, agent, runId: started.runId, runtime: { ...runtime, name }, token });
    }
    // Runtimes just filled: queued tasks may go to other runners' runtimes now (a fallback pool's), so their long
    // polls look again.
    if (claimed.length > 0) await announce(trx, { kind: "tasks", runnersOnly: true });
    return { claims: claimed, passedBy };
  });
}
