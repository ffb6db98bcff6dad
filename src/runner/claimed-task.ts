// A claimed task from start to report: its run, its events batched to the server, its session saved as soon as
// known, and its end posted until the server answers. Every report is safe to repeat; a 409 means the task is no
// longer this runner's (cancelled, lease lost, taken over): the CLI is stopped and nothing more is said about it.

import { EventBatcher } from "./batcher.ts";
import { type RunnerApi, RunnerApiError } from "./client.ts";
import type { Assignment } from "./protocol.ts";
import { untilAnswered } from "./retry.ts";
import type { LocalRuntime } from "./runtimes.ts";
import type { TaskEnd } from "./task-run.ts";
import { type TaskContext, TaskRun } from "./task-run.ts";

export interface RunnerIo {
  /** One line per task start and end (stdout). */
  line(text: string): void;
  /** Warnings: the server cannot be reached, a report was refused (stderr). */
  warn(text: string): void;
}

interface ClaimedTaskDeps {
  api: RunnerApi;
  context: TaskContext;
  io: RunnerIo;
  /** Told when the server refuses the runner itself (401): the runner stops. */
  onUnauthorized: (error: RunnerApiError) => void;
  /** Told of each retry against a server that cannot be reached. */
  onRetry: (error: unknown, waitMs: number) => void;
  /** Whether the server takes the run's last events with `complete` (its register answer said so). */
  completeEvents: boolean;
}

export class ClaimedTask {
  readonly done: Promise<void>;
  private readonly run: TaskRun;
  private readonly batcher: EventBatcher;
  private readonly abort = new AbortController();
  private sessionSaved: Promise<void> = Promise.resolve();
  /** Why nothing more is reported, once that is so. */
  private dropped: string | undefined;

  constructor(
    private readonly assignment: Assignment,
    private readonly runtime: LocalRuntime,
    private readonly deps: ClaimedTaskDeps,
  ) {
    const taskId = assignment.task.id;
    this.batcher = new EventBatcher({
      send: (events) => deps.api.events(taskId, events),
      onCancel: () => this.cancel(),
      onRefused: (error) => this.refused(error),
      onRetry: deps.onRetry,
    });
    this.run = new TaskRun(assignment, runtime, deps.context, {
      event: (event) => this.batcher.push(event),
      session: (sessionId, workDir) => {
        this.sessionSaved = this.sessionSaved.then(() =>
          this.report(() => deps.api.session(taskId, sessionId, workDir)),
        );
      },
    });
    this.done = this.work();
  }

  get taskId(): string {
    return this.assignment.task.id;
  }

  /** The server cancelled it: the CLI's group is ended, nothing is reported. */
  cancel(): void {
    this.drop("cancelled");
    void this.run.stop("cancelled");
  }

  /** The runner is told to stop now: the CLI's group is ended and the task failed as retryable. */
  shutdown(): void {
    void this.run.stop("shutdown");
  }

  /** The runner cannot talk to the server any more (its token was refused): stop, report nothing. */
  abandon(): void {
    this.drop("abandoned");
    void this.run.stop("cancelled");
  }

  private async work(): Promise<void> {
    const { assignment, runtime, deps } = this;
    const label = `task ${this.taskId} (${assignment.issue.identifier}, ${runtime.name}, attempt ${assignment.attempt})`;
    const started = performance.now();
    deps.io.line(`${label} started`);
    const end = await this.run.run();
    if (this.dropped === undefined && end.outcome !== "stopped") await this.reportEnd(end);
    this.batcher.stop();
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    deps.io.line(`${label} ${this.dropped ?? describe(end)} after ${seconds} s`);
  }

  /**
   * Events and the session first (the server shows the run whole), then the end, each until answered. A success
   * carries the events not sent yet, where the server takes them: one call, without waiting for the next batch.
   */
  private async reportEnd(end: TaskEnd): Promise<void> {
    const rest = end.outcome === "complete" && this.deps.completeEvents ? await this.batcher.takeRest() : [];
    await this.batcher.drained();
    await this.sessionSaved;
    if (this.dropped !== undefined) return;
    const taskId = this.taskId;
    if (end.outcome === "complete") {
      const body = rest.length > 0 ? { ...end.body, events: rest } : end.body;
      await this.report(() => this.deps.api.complete(taskId, body));
    }
    if (end.outcome === "fail") await this.report(() => this.deps.api.fail(taskId, end.body));
  }

  private async report(call: () => Promise<void>): Promise<void> {
    if (this.dropped !== undefined) return;
    try {
      await untilAnswered(call, { signal: this.abort.signal, onRetry: this.deps.onRetry });
    } catch (error) {
      this.refused(error);
    }
  }

  private refused(error: unknown): void {
    if (this.dropped !== undefined) return;
    if (error instanceof RunnerApiError && error.status === 401) {
      this.deps.onUnauthorized(error);
      return;
    }
    if (error instanceof RunnerApiError && (error.status === 409 || error.status === 404)) {
      this.drop(`dropped: no longer this runner's (${error.detail})`);
      void this.run.stop("cancelled");
      return;
    }
    // Any other refusal is final for this report; the task's lease ends and it is retried.
    this.deps.io.warn(`task ${this.taskId}: the server refused a report: ${String(error)}`);
  }

  private drop(reason: string): void {
    this.dropped ??= reason;
    this.batcher.stop();
    this.abort.abort();
  }
}

function describe(end: TaskEnd): string {
  switch (end.outcome) {
    case "complete":
      return end.body.branch === undefined ? "succeeded" : `succeeded (branch ${end.body.branch})`;
    case "fail":
      return `failed${end.body.retryable ? " (retryable)" : ""}: ${end.body.error.split("\n")[0]}`;
    case "stopped":
      return "cancelled";
  }
}
