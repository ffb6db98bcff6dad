// The claim's long poll: a wait that ends as soon as the queue may hold work for this runner (a `tasks` signal from
// any process, PostgreSQL NOTIFY across processes), at a retry's available_at, at the deadline, or when the server
// closes or the runner hangs up. A wake-up only says "look": the claim reads the truth from the tables.
import type { Db } from "../db/index.ts";
import { now } from "../db/values.ts";
import type { WorkSignals } from "../work/signals.ts";

export class LongPolls {
  /** Counts `tasks` signals, so a claim that found nothing knows whether work was announced meanwhile. */
  private wakeups = 0;
  private readonly waiters = new Set<() => void>();
  private readonly stopSignals: () => void;
  private closed = false;

  constructor(
    private readonly db: Db,
    signals: WorkSignals,
  ) {
    this.stopSignals = signals.on((signal) => {
      if (signal.kind !== "tasks") return;
      this.wakeups++;
      for (const wake of [...this.waiters]) wake();
    });
    signals.onResync(() => {
      this.wakeups++;
      for (const wake of [...this.waiters]) wake();
    });
  }

  /** Taken before a claim; `wait` returns at once if a signal came after it. */
  mark(): number {
    return this.wakeups;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Waits at most `ms` for a signal after `mark`, the next retry of the workspace's runner tasks, or `abort`. */
  async wait(mark: number, workspaceId: string, ms: number, abort: AbortSignal): Promise<void> {
    if (this.closed || abort.aborted || this.wakeups !== mark || ms <= 0) return;
    const retryAt = await this.nextRetry(workspaceId);
    const until = retryAt === undefined ? ms : Math.min(ms, Math.max(retryAt - Date.now(), 0) + 5);
    if (this.wakeups !== mark) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        abort.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, until);
      this.waiters.add(done);
      abort.addEventListener("abort", done, { once: true });
    });
  }

  /**
   * When the next task of a runtime-bound agent waiting for its retry becomes claimable. Only retries still to come:
   * a task claimable by time already waits for room (its agent's or a runtime's), which a report's signal brings.
   */
  private async nextRetry(workspaceId: string): Promise<number | undefined> {
    const row = await this.db
      .selectFrom("tasks")
      .innerJoin("agents", "agents.id", "tasks.agent_id")
      .select((eb) => eb.fn.min("tasks.available_at").as("at"))
      .where("tasks.workspace_id", "=", workspaceId)
      .where("tasks.status", "=", "queued")
      .where("tasks.available_at", ">", now())
      .where("agents.runtime_select", "is not", null)
      .executeTakeFirst();
    return row?.at ? Date.parse(`${row.at}Z`) : undefined;
  }

  close(): void {
    this.closed = true;
    this.stopSignals();
    for (const wake of [...this.waiters]) wake();
  }
}
