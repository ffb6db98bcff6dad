// An agent's status while it runs outside the task queue (agent UI, ask_<agent>): each run in progress is a row of
// agent_live_runs held by its process, renewed while it lasts, so the status is derived from what every process
// sharing the database runs: `working` while any run or running task of the agent exists, then `idle`, or `error`
// after a run failed. A killed process's rows lapse once their lease ends and any other process sweeps them away,
// so its runs cannot leave the agent `working` forever. Written as the agent itself (activity says the agent did it).
import type { DeleteQueryBuilder, DeleteResult } from "kysely";
import type { Db } from "../db/index.ts";
import { holdWorkspace } from "../db/lock-order.ts";
import type { Database } from "../db/schema.ts";
import { newId, now, timestampAt } from "../db/values.ts";
import type { Agent } from "../platform/agents/service.ts";

/** Sets the agent's status from its runs and running tasks, inside `trx` (the one rule, in work/agent-work-status.ts). */
type AgentStatusSync = (trx: Db, agent: { id: string; workspaceId: string }, failedFinally: boolean) => Promise<void>;

/** The agent's workspace and the agent, first in a transaction that writes its runs (db/lock-order.ts). */
const holdAgent = (trx: Db, agentId: string, workspaceId: string) => holdWorkspace(trx, workspaceId, { agentId });

interface LiveRunSettings {
  /** How long a run counts without its process renewing it. */
  leaseMs: number;
}

export class AgentStatusTracker {
  /** This process, as the holder of its runs' rows. */
  private readonly holder = newId();
  private readonly renewal: NodeJS.Timeout;
  private renewing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly sync: AgentStatusSync,
    private readonly settings: LiveRunSettings,
  ) {
    this.renewal = setInterval(
      () => {
        this.renewing = this.renewAndSweep().catch(() => {});
      },
      Math.max(50, Math.floor(settings.leaseMs / 3)),
    ).unref();
  }

  /** Records a run of `agent` in progress; returns its id for `runEnded`. */
  async runStarted(agent: Agent): Promise<string> {
    const runId = newId();
    await this.db
      .transaction()
      .execute(async (trx) => {
        if (!(await holdAgent(trx, agent.id, agent.workspace_id))) return;
        await trx
          .insertInto("agent_live_runs")
          .values({
            id: runId,
            agent_id: agent.id,
            workspace_id: agent.workspace_id,
            holder: this.holder,
            expires_at: this.leaseEnd(),
          })
          .execute();
        await this.sync(trx, { id: agent.id, workspaceId: agent.workspace_id }, false);
      })
      .catch(() => {});
    return runId;
  }

  async runEnded(agent: Agent, runId: string, failed: boolean): Promise<void> {
    await this.db
      .transaction()
      .execute(async (trx) => {
        if (!(await holdAgent(trx, agent.id, agent.workspace_id))) return;
        await trx.deleteFrom("agent_live_runs").where("id", "=", runId).execute();
        await this.sync(trx, { id: agent.id, workspaceId: agent.workspace_id }, failed);
      })
      .catch(() => {});
  }

  /** Shutdown: this process's runs stop counting now rather than when their lease lapses. */
  async close(): Promise<void> {
    clearInterval(this.renewal);
    await this.renewing;
    await this.release(this.db.deleteFrom("agent_live_runs").where("holder", "=", this.holder)).catch(() => {});
  }

  private leaseEnd(): string {
    return timestampAt(Date.now() + this.settings.leaseMs);
  }

  /** Keeps this process's runs counted, and takes away those whose process stopped renewing them. */
  private async renewAndSweep(): Promise<void> {
    await this.db
      .updateTable("agent_live_runs")
      .set({ expires_at: this.leaseEnd() })
      .where("holder", "=", this.holder)
      .execute();
    await this.release(this.db.deleteFrom("agent_live_runs").where("expires_at", "<=", now()));
  }

  /** Deletes runs, then sets the status of each agent they were of. */
  private async release(runs: DeleteQueryBuilder<Database, "agent_live_runs", DeleteResult>): Promise<void> {
    const released = await runs.returning(["agent_id", "workspace_id"]).execute();
    const agents = new Map(released.map((row) => [row.agent_id, row.workspace_id]));
    for (const [id, workspaceId] of agents) {
      await this.db.transaction().execute(async (trx) => {
        if (await holdAgent(trx, id, workspaceId)) await this.sync(trx, { id, workspaceId }, false);
      });
    }
  }
}
