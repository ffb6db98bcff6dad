// The runner's loop: register, heartbeat (whose `cancel` list stops tasks), claim with a long poll while a slot is
// free, run up to --max-tasks tasks at once. Stopping: drain() lets running tasks finish, stopTasks() ends them
// (each failed as retryable); either way the runner deregisters at the end. A refused token (401) stops it at once.
import { setTimeout as delay } from "node:timers/promises";
import { ClaimedTask, type RunnerIo } from "./claimed-task.ts";
import { type RegisterBody, RunnerApi, RunnerApiError } from "./client.ts";
import { AssignmentSchema, taskIdOf } from "./protocol.ts";
import { Backoff, isTransient, untilAnswered } from "./retry.ts";
import type { LocalRuntime } from "./runtimes.ts";
import type { TaskContext } from "./task-run.ts";

interface RunnerOptions {
  url: string;
  token: string;
  runnerId: string;
  name: string;
  host: string;
  version: string;
  maxTasks: number;
  runtimes: LocalRuntime[];
  context: TaskContext;
}

/** The claim's long poll: under the server's 30 s cap, well over the heartbeat's period. */
const CLAIM_WAIT_MS = 25_000;
const HEARTBEAT_MS = 10_000;
/** While tasks run, heartbeats come this often: a cancelled task's CLI is ended within 5 s. */
const HEARTBEAT_WHILE_WORKING_MS = 2_000;
const DEREGISTER_WITHIN_MS = 10_000;

export class Runner {
  private readonly api: RunnerApi;
  private readonly running = new Map<string, ClaimedTask>();
  private readonly runtimesById = new Map<string, LocalRuntime>();
  private readonly stopClaiming = new AbortController();
  private readonly stopHeartbeats = new AbortController();
  private slotFreed: (() => void) | undefined;
  /** Cuts an idle heartbeat's wait short when a task starts. */
  private taskStarted: (() => void) | undefined;
  private unauthorized: RunnerApiError | undefined;
  /** The server takes a run's last events with `complete` (from its register answer). */
  private completeEvents = false;
  private unreachableSince: number | undefined;

  constructor(
    private readonly options: RunnerOptions,
    private readonly io: RunnerIo,
  ) {
    this.api = new RunnerApi(options.url, options.token, options.runnerId);
  }

  /** Runs until drained or refused; resolves to the process exit code. */
  async run(): Promise<number> {
    try {
      await this.register();
    } catch (error) {
      if (this.stopClaiming.signal.aborted) return 0;
      this.io.warn(`Could not register with ${this.options.url}: ${describeError(error)}`);
      return 1;
    }
    const heartbeats = this.heartbeats();
    await this.claimLoop();
    await Promise.all([...this.running.values()].map((task) => task.done));
    this.stopHeartbeats.abort();
    await heartbeats;
    if (this.unauthorized !== undefined) {
      this.io.warn(`The runner token was refused (${this.unauthorized.detail}): stopped.`);
      return 1;
    }
    await this.deregister();
    return 0;
  }

  /** Ctrl-C: claim nothing more, let running tasks finish. */
  drain(): void {
    if (this.stopClaiming.signal.aborted) return;
    this.stopClaiming.abort();
    this.slotFreed?.();
    const count = this.running.size;
    if (count > 0) this.io.line(`Stopping: waiting for ${count} running task(s) to finish (Ctrl-C again to stop them)`);
  }

  /** A second Ctrl-C: end the running tasks' CLIs; each is failed as retryable. */
  stopTasks(): void {
    this.drain();
    for (const task of this.running.values()) task.shutdown();
  }

  private async register(): Promise<void> {
    const { options } = this;
    const body: RegisterBody = {
      name: options.name,
      host: options.host,
      version: options.version,
      runtimes: options.runtimes.map((runtime) => ({
        name: runtime.name,
        kind: runtime.kind,
        ...(runtime.version === undefined ? {} : { version: runtime.version }),
        tags: runtime.tags,
        max_concurrent_tasks: options.maxTasks,
      })),
    };
    const answer = await untilAnswered(() => this.api.register(body), {
      signal: this.stopClaiming.signal,
      onRetry: (error, waitMs) => this.unreachable(error, waitMs),
    });
    this.reachable();
    this.completeEvents = answer.complete_events;
    for (const registered of answer.runtimes) {
      const local = options.runtimes.find((runtime) => runtime.name === registered.name);
      if (local !== undefined) this.runtimesById.set(registered.id, local);
    }
    const names = options.runtimes.map((runtime) => `${runtime.name}${runtime.version ? ` ${runtime.version}` : ""}`);
    this.io.line(`Runner ${options.name} registered with ${options.url}: ${names.join(", ")}; waiting for tasks`);
  }

  private async claimLoop(): Promise<void> {
    const backoff = new Backoff();
    const signal = this.stopClaiming.signal;
    while (!signal.aborted) {
      const free = this.options.maxTasks - this.running.size;
      if (free <= 0) {
        await new Promise<void>((resolve) => {
          this.slotFreed = resolve;
        });
        continue;
      }
      let tasks: unknown[];
      try {
        tasks = await this.api.claim([...this.runtimesById.keys()], Math.min(free, 20), CLAIM_WAIT_MS, signal);
        backoff.reset();
        this.reachable();
      } catch (error) {
        if (signal.aborted) return;
        if (this.refusedRunner(error)) return;
        if (error instanceof RunnerApiError && error.status === 404) {
          // The server no longer knows this runner (an admin deleted it): it registers again, new runtime ids.
          this.io.warn(`The server does not know this runner (${error.detail}): registering again`);
          this.runtimesById.clear();
          try {
            await this.register();
            continue;
          } catch (registerError) {
            if (signal.aborted || this.refusedRunner(registerError)) return;
          }
        }
        const waitMs = backoff.next();
        if (isTransient(error)) this.unreachable(error, waitMs);
        else this.io.warn(`The server refused a claim: ${describeError(error)}`);
        await delay(waitMs, undefined, { signal }).catch(() => {});
        continue;
      }
      for (const raw of tasks) this.start(raw);
    }
  }

  private start(raw: unknown): void {
    const parsed = AssignmentSchema.safeParse(raw);
    if (!parsed.success) {
      const taskId = taskIdOf(raw);
      this.io.warn(`Could not read an assignment${taskId ? ` (task ${taskId})` : ""}: ${parsed.error.message}`);
      if (taskId !== undefined) {
        this.reportRefusal(taskId, "The runner could not read the assignment", false);
      }
      return;
    }
    const assignment = parsed.data;
    if (this.running.has(assignment.task.id)) return; // a claim answered twice: the task is already being worked
    const runtime = this.runtimesById.get(assignment.runtime_id);
    if (runtime === undefined) {
      this.reportRefusal(assignment.task.id, `This runner offers no runtime ${assignment.runtime_id}`, true);
      return;
    }
    const task = new ClaimedTask(assignment, runtime, {
      api: this.api,
      context: this.options.context,
      io: this.io,
      onUnauthorized: (error) => this.refusedRunner(error),
      onRetry: (error, waitMs) => this.unreachable(error, waitMs),
      completeEvents: this.completeEvents,
    });
    this.running.set(task.taskId, task);
    this.taskStarted?.();
    void task.done.finally(() => {
      this.running.delete(task.taskId);
      this.slotFreed?.();
      this.slotFreed = undefined;
    });
  }

  private reportRefusal(taskId: string, error: string, retryable: boolean): void {
    const until = { signal: this.stopHeartbeats.signal };
    void untilAnswered(() => this.api.fail(taskId, { error, retryable }), until).catch((refusal) => {
      if (!this.refusedRunner(refusal))
        this.io.warn(`task ${taskId}: the server refused a report: ${describeError(refusal)}`);
    });
  }

  /** At least every 15 s: renews the leases of the tasks held, and names those to stop now. */
  private async heartbeats(): Promise<void> {
    const signal = this.stopHeartbeats.signal;
    while (!signal.aborted) {
      if (this.running.size > 0) await delay(HEARTBEAT_WHILE_WORKING_MS, undefined, { signal }).catch(() => {});
      else {
        const started = new Promise<void>((resolve) => {
          this.taskStarted = resolve;
        });
        await Promise.race([delay(HEARTBEAT_MS, undefined, { signal }).catch(() => {}), started]);
        this.taskStarted = undefined;
        if (this.running.size > 0) continue;
      }
      if (signal.aborted) return;
      try {
        const cancel = await this.api.heartbeat();
        this.reachable();
        for (const taskId of cancel) this.running.get(taskId)?.cancel();
      } catch (error) {
        if (this.refusedRunner(error)) return;
        if (isTransient(error)) this.unreachable(error, HEARTBEAT_MS);
      }
    }
  }

  /** A 401: the token was revoked. Everything stops, nothing more is reported (the server refuses it all). */
  private refusedRunner(error: unknown): boolean {
    if (!(error instanceof RunnerApiError && error.status === 401)) return false;
    if (this.unauthorized === undefined) {
      this.unauthorized = error;
      this.stopClaiming.abort();
      this.slotFreed?.();
      for (const task of this.running.values()) task.abandon();
    }
    return true;
  }

  private async deregister(): Promise<void> {
    try {
      await untilAnswered(() => this.api.deregister(), { signal: AbortSignal.timeout(DEREGISTER_WITHIN_MS) });
      this.io.line(`Runner ${this.options.name} deregistered`);
    } catch (error) {
      this.io.warn(`Could not deregister (${describeError(error)}): the server marks the runner offline soon anyway`);
    }
  }

  /** Said once per outage, not once per retry. */
  private unreachable(error: unknown, waitMs: number): void {
    if (this.unreachableSince !== undefined) return;
    this.unreachableSince = Date.now();
    this.io.warn(
      `The server cannot be reached (${describeError(error)}); retrying in ${Math.ceil(waitMs / 1000)} s and ` +
        "then at most every 30 s, nothing is lost",
    );
  }

  private reachable(): void {
    if (this.unreachableSince === undefined) return;
    this.unreachableSince = undefined;
    this.io.warn("The server is reachable again");
  }
}

function describeError(error: unknown): string {
  if (error instanceof RunnerApiError) return `${error.status} ${error.detail}`;
  if (error instanceof Error) {
    const cause = (error as Error & { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message;
  }
  return String(error);
}
