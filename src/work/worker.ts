// The worker of one process: claims tasks while it has room (AGENT_WORKERS at once), woken by signals rather than
// polling (a task queued here or, through PostgreSQL NOTIFY, anywhere), renews the lease of each task it runs, stops a
// run within moments of its cancellation, and takes up tasks whose process died (a slow sweep of expired leases).
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { Coalescer } from "../db/coalesce.ts";
import type { Db } from "../db/index.ts";
import { type ClaimedTask, claimNextTask, recoverExpiredLeases, renewLease } from "./leases.ts";
import type { WorkSignals } from "./signals.ts";
import type { RunEnd, StopReason, TaskRunner } from "./task-run.ts";

interface WorkerSettings {
  workers: number;
  maxAttempts: number;
  leaseMs: number;
  retryBaseMs: number;
  defaultModel: string;
}

interface WorkerLog {
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

interface RunningTask {
  controller: AbortController;
  done: Promise<void>;
}

/** Expired leases are looked for this often: half a lease, between a quarter second and 15 s. */
const sweepEveryMs = (leaseMs: number) => Math.min(Math.max(leaseMs / 2, 250), 15_000);

export class Worker {
  /** Names this process in the leases it takes. */
  readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly running = new Map<string, RunningTask>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopSignals: (() => void) | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  /** Rounds of claims, one at a time: a wake-up during a round brings one more round after it. */
  private readonly claims: Coalescer;
  /** Whether the last claim that ended saw more tasks waiting: only then do claims run side by side. */
  private queueHadWork = true;
  private sweeping: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly db: Db,
    private readonly signals: WorkSignals,
    private readonly runner: TaskRunner,
    private readonly settings: WorkerSettings,
    private readonly log: WorkerLog,
  ) {
    this.claims = new Coalescer(
      () => this.claimWhileRoom(),
      (error) => this.log.error({ err: error }, "claiming tasks failed"),
    );
  }

  /** Tasks this process runs right now. */
  get busy(): number {
    return this.running.size;
  }

  start(): void {
    this.stopSignals = this.signals.on((signal) => {
      if (signal.kind === "tasks" && !signal.runnersOnly) this.claim();
      else if (signal.kind === "cancel")
        this.running.get(signal.taskId)?.controller.abort("cancelled" satisfies StopReason);
    });
    this.signals.onResync(() => this.claim());
    this.sweepTimer = setInterval(() => this.sweep(), sweepEveryMs(this.settings.leaseMs));
    this.sweep();
  }

  /** Claims nothing more (draining); the runs in progress go on, and still hear their cancellation. */
  stopClaiming(): void {
    this.stopped = true;
    clearInterval(this.sweepTimer);
    for (const timer of this.timers) clearTimeout(timer);
  }

  /** Stops claiming, stops the runs in progress (their tasks go back to the queue) and waits for them to wind up. */
  async stop(): Promise<void> {
    this.stopClaiming();
    this.stopSignals?.();
    await Promise.all([this.claims.idle(), this.sweeping]);
    for (const task of this.running.values()) task.controller.abort("shutdown" satisfies StopReason);
    await Promise.all([...this.running.values()].map((task) => task.done));
  }

  /** Claims tasks while there is room; a wake-up while claims are under way looks once more after them. */
  claim(): void {
    if (this.stopped || this.settings.workers === 0) return;
    this.claims.run();
  }

  /**
   * Rounds of claims while there is room: one claim when the queue may be empty, more side by side (one per free
   * slot) while claims see more tasks waiting.
   */
  private async claimWhileRoom(): Promise<void> {
    for (;;) {
      const room = this.settings.workers - this.running.size;
      if (this.stopped || room <= 0) return;
      const round = this.queueHadWork ? room : 1;
      await Promise.all(Array.from({ length: round }, () => this.claimOne()));
      if (!this.queueHadWork) return;
    }
  }

  /** Claims one task and launches it. */
  private async claimOne(): Promise<void> {
    let claimed: ClaimedTask | undefined;
    try {
      claimed = await claimNextTask(this.db, { ...this.settings, owner: this.owner });
    } catch (error) {
      this.queueHadWork = false;
      this.log.warn({ message: error instanceof Error ? error.message : String(error) }, "claiming a task failed");
      return;
    }
    this.queueHadWork = claimed?.moreQueued ?? false;
    if (claimed) this.launch(claimed);
  }

  private launch(claimed: ClaimedTask): void {
    const taskId = claimed.task.id;
    const controller = new AbortController();
    const { leaseMs } = this.settings;
    let renewedAt = Date.now();
    const renewal = setInterval(async () => {
      try {
        const state = await renewLease(this.db, taskId, this.owner, leaseMs);
        if (state === "held") renewedAt = Date.now();
        else controller.abort((state === "cancelled" ? "cancelled" : "lost") satisfies StopReason);
      } catch {
        // The database is out of reach: past the lease, another process may have the task.
        if (Date.now() - renewedAt > leaseMs) controller.abort("lost" satisfies StopReason);
      }
    }, leaseMs / 3);
    const done = this.runner
      .run(claimed, this.owner, controller.signal)
      .then((end) => this.ended(end))
      .catch((error: unknown) => this.log.error({ err: error, taskId }, "task run crashed"))
      .finally(() => {
        clearInterval(renewal);
        this.running.delete(taskId);
        this.claim();
      });
    this.running.set(taskId, { controller, done });
  }

  private ended(end: RunEnd): void {
    if (end.kind !== "retry") return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.claim();
    }, end.inMs + 5);
    this.timers.add(timer);
  }

  /** Takes up tasks of dead processes, and claims what became available meanwhile (retries of other processes). */
  private sweep(): void {
    if (this.sweeping || this.stopped) return;
    this.sweeping = recoverExpiredLeases(this.db, this.settings)
      .then(() => {})
      .catch((error: unknown) => {
        this.log.warn({ message: error instanceof Error ? error.message : String(error) }, "lease sweep failed");
      })
      .finally(() => {
        this.sweeping = undefined;
        this.claim();
      });
  }
}
