// The runner API's rules, one method per call, given the runner token's standing and the body (never a request).
import { setTimeout } from "node:timers/promises";
import { MESSAGES, type RunnerCredential } from "../auth/authenticator.ts";
import type { Db } from "../db/index.ts";
import { timestampAt } from "../db/values.ts";
import { unauthorized } from "../http/errors.ts";
import { NOT_STARTED, startIssues } from "../platform/issues/service.ts";
import type { PriceTable } from "../usage/prices.ts";
import type { WorkSignals } from "../work/signals.ts";
import { type Assignment, buildAssignment, type PlatformUrls } from "./assignment.ts";
import { claimForRunner } from "./claims.ts";
import { stopList } from "./held-tasks.ts";
import { LongPolls } from "./long-poll.ts";
import { completeRunnerTask, failRunnerTask, reportEvents, reportSession } from "./reports.ts";
import { deregisterRunner, leaseOwnerOf, registerRunner, seeRunner } from "./runners.ts";
import type { ClaimInput, CompleteInput, FailInput, RegisterInput, RunnerEventInput, SessionInput } from "./schemas.ts";

/** How soon a claim that passed a locked agent by looks again (its holder commits within milliseconds). */
const PASSED_BY_RETRY_MS = 5;

export interface RunnerSettings {
  leaseMs: number;
  maxAttempts: number;
  retryBaseMs: number;
  runnerOfflineMs: number;
}

export class RunnerService {
  private readonly polls: LongPolls;

  constructor(
    readonly db: Db,
    signals: WorkSignals,
    readonly settings: RunnerSettings,
    private readonly prices: PriceTable,
  ) {
    this.polls = new LongPolls(db, signals);
  }

  /**
   * `POST runner/claim`: up to `max_tasks` assignments, as soon as one is claimable or after `wait_ms` (an open
   * long poll keeps the runner seen). `abort` ends the wait (the runner hung up).
   */
  async claim(
    credential: RunnerCredential,
    input: ClaimInput,
    platform: PlatformUrls,
    abort: AbortSignal,
  ): Promise<{ tasks: Assignment[] }> {
    const deadline = Date.now() + input.wait_ms;
    const { workspaceId } = credential;
    for (let round = 0; ; round++) {
      // Every round after the first (the request's own check): a token revoked meanwhile ends the long poll, 401.
      if (round > 0) await this.requireToken(credential);
      // The first round's runner was read with the token; a long poll's later rounds read it again.
      const runner = await seeRunner(
        this.db,
        workspaceId,
        input.runner_id,
        round === 0 ? credential.runner : undefined,
      );
      const mark = this.polls.mark();
      const { claims, passedBy } = await claimForRunner(
        this.db,
        runner,
        input.runtime_ids,
        input.max_tasks,
        this.settings,
      );
      if (claims.length > 0) {
        // One that cannot be built (its issue deleted meanwhile: the task is cancelled) is left to its lease; the
        // others go out.
        const built = await Promise.allSettled(
          claims.map((claim) => buildAssignment(this.db, claim, platform, this.settings.maxAttempts)),
        );
        const tasks = built.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
        // While the CLIs start, not before (as an in-process run moves its issue while the model is already asked),
        // all in one transaction. A refusal (the workspace deleted meanwhile) leaves the tasks to end with it.
        const starts = tasks
          .filter((task) => NOT_STARTED.includes(task.issue.status))
          .map((task) => ({ issueId: task.task.issue_id, agentId: task.task.agent_id }));
        void startIssues(this.db, workspaceId, starts).catch(() => undefined);
        if (tasks.length > 0 || built.length === 0) return { tasks };
        throw (built[0] as PromiseRejectedResult).reason;
      }
      const left = deadline - Date.now();
      if (left <= 0 || abort.aborted || this.polls.isClosed) return { tasks: [] };
      // A candidate's agent was held by a transaction about to commit (which need not announce anything): look again.
      if (passedBy) {
        await setTimeout(PASSED_BY_RETRY_MS);
        continue;
      }
      // Woken at least this often to renew last_seen_at: an open long poll counts as the runner being seen.
      await this.polls.wait(mark, workspaceId, Math.min(left, this.settings.runnerOfflineMs / 3), abort);
    }
  }

  register(credential: RunnerCredential, input: RegisterInput) {
    return registerRunner(this.db, credential.workspaceId, input);
  }

  async heartbeat(credential: RunnerCredential, runnerKey: string): Promise<{ cancel: string[] }> {
    const runner = await seeRunner(this.db, credential.workspaceId, runnerKey, credential.runner);
    await this.db
      .updateTable("tasks")
      .set({ lease_expires_at: timestampAt(Date.now() + this.settings.leaseMs) })
      .where("lease_owner", "=", leaseOwnerOf(runner.id))
      .where("status", "=", "running")
      .execute();
    return { cancel: await stopList(this.db, runner.id) };
  }

  async events(credential: RunnerCredential, runnerKey: string, taskId: string, events: RunnerEventInput[]) {
    const runner = await seeRunner(this.db, credential.workspaceId, runnerKey, credential.runner);
    return reportEvents(this.db, runner, taskId, events, this.settings.leaseMs);
  }

  async session(credential: RunnerCredential, taskId: string, input: SessionInput): Promise<void> {
    const runner = await seeRunner(this.db, credential.workspaceId, input.runner_id, credential.runner);
    await reportSession(this.db, runner, taskId, input, this.settings.leaseMs);
  }

  async complete(credential: RunnerCredential, taskId: string, input: CompleteInput): Promise<void> {
    const runner = await seeRunner(this.db, credential.workspaceId, input.runner_id, credential.runner);
    await completeRunnerTask(this.db, runner, taskId, input, this.prices);
  }

  async fail(credential: RunnerCredential, taskId: string, input: FailInput): Promise<void> {
    const runner = await seeRunner(this.db, credential.workspaceId, input.runner_id, credential.runner);
    await failRunnerTask(this.db, runner, taskId, input, this.settings.retryBaseMs);
  }

  deregister(credential: RunnerCredential, runnerKey: string) {
    return deregisterRunner(this.db, credential.workspaceId, runnerKey);
  }

  private async requireToken(credential: RunnerCredential): Promise<void> {
    const token = await this.db
      .selectFrom("runner_tokens")
      .select("id")
      .where("id", "=", credential.tokenId)
      .executeTakeFirst();
    if (!token) throw unauthorized(MESSAGES.badRunnerToken);
  }

  /** Ends the long polls still open. */
  async close(): Promise<void> {
    this.polls.close();
  }
}
