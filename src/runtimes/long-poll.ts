// The claim's long poll: a wait that ends as soon as the queue may hold work for this runner (a `tasks` signal from
// any process, PostgreSQL NOTIFY across processes), at a retry's available_at, at the deadline, or when the server
// closes or the runner hangs up. A wake-up only says "look": the claim reads the truth from the tables.
import type { Db } from "../db/index.ts";
import { now } from "../db/values.ts";
import type { WorkSignals } from "../work/signals.ts";

/**
 * A poll that found nothing looks again at least this often while tasks claimable by time wait, signal or not: a
 * claim can miss tasks another claim held locked at that moment and then left to it, with nothing to announce.
 */
const IDLE_LOOK_MS = 1_000;

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

  /**
   * Waits at most `ms` for a signal after `mark`, the next retry of the workspace's runner tasks, or `abort`; while
   * tasks claimable by time wait (for room), at most IDLE_LOOK_MS.
   */
  async wait(mark: number, workspaceId: string, ms: number, abort: AbortSignal): Promise<void> {
    if (this.closed || abort.aborted || this.wakeups !== mark || ms <= 0) return;
    const { retryAt, waiting } = await this.queueOf(workspaceId);
    let until = retryAt === undefined ? ms : Math.min(ms, Math.max(retryAt - Date.now(), 0) + 5);
    if (waiting) until = Math.min(until, IDLE_LOOK_MS);
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
   * The workspace's queued tasks of runtime-bound agents: when the next retry still to come is due, and whether any is
   * claimable by time already. Those wait for room (their agent's or a runtime's), which reports and claims announce.
   */
  private async queueOf(workspaceId: string): Promise<{ retryAt: number | undefined; waiting: boolean }> {
    const at = now();
    const row = await this.db
      .selectFrom("tasks")
      .innerJoin("agents", "agents.id", "tasks.agent_id")
      .select((eb) => [
        eb.fn
          .min(eb.case().when("tasks.available_at", ">", at).then(eb.ref("tasks.available_at")).end())
          .as("retry_at"),
        eb.fn.min("tasks.available_at").as("first_at"),
      ])
      .where("tasks.workspace_id", "=", workspaceId)
      .where("tasks.status", "=", "queued")
      .where("agents.runtime_select", "is not", null)
      .executeTakeFirst();
    return {
      retryAt: row?.retry_at ? Date.parse(`${row.retry_at}Z`) : undefined,
      waiting: row?.first_at ? row.first_at <= at : false,
    };
  }

  close(): void {
    this.closed = true;
    this.stopSignals();
    for (const wake of [...this.waiters]) wake();
  }
}
