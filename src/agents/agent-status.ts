// An agent's status while it runs: `working` while any run of it is in progress in this process, then `idle`, or
// `error` after a run failed. Written as the agent itself, so the activity log says the agent did it.
import type { Db } from "../db/index.ts";
import { type PlatformAgent, writeAgentStatus } from "./agent-store.ts";

export class AgentStatusTracker {
  /** Runs in progress per platform agent. */
  private readonly activeRuns = new Map<string, number>();

  constructor(private readonly db: Db) {}

  async runStarted(agent: PlatformAgent): Promise<void> {
    const active = (this.activeRuns.get(agent.id) ?? 0) + 1;
    this.activeRuns.set(agent.id, active);
    if (active === 1) await writeAgentStatus(this.db, agent, "working").catch(() => {});
  }

  async runEnded(agent: PlatformAgent, failed: boolean): Promise<void> {
    const active = (this.activeRuns.get(agent.id) ?? 1) - 1;
    if (active > 0) this.activeRuns.set(agent.id, active);
    else this.activeRuns.delete(agent.id);
    if (active === 0 || failed) await writeAgentStatus(this.db, agent, failed ? "error" : "idle").catch(() => {});
  }
}
