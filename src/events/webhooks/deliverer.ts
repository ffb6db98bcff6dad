// Attempts → receivers: claims due attempts under a lease (FOR UPDATE SKIP LOCKED on PostgreSQL, so several
// processes share the queue without sending one attempt twice at once), sends them, and records each outcome with the
// next attempt after a failure. A process that dies mid-attempt leaves a lease that expires, and the attempt is sent
// again: at least once, the same `webhook-id` every time.
// Claims are fair per hook (./claims.ts): a hook has at most `perHook` attempts in flight across all processes (one
// while it is failing), taken in its own order, and free slots go round the hooks with due attempts, so a slow or dead
// receiver only delays itself.
import { randomUUID } from "node:crypto";
import { Webhook as StandardWebhook } from "standardwebhooks";
import { Coalescer } from "../../db/coalesce.ts";
import type { Db, SqlDialect } from "../../db/index.ts";
import { holdWorkspace } from "../../db/lock-order.ts";
import { now, timestampAt } from "../../db/values.ts";
import { checkTarget, type TargetPolicy } from "../../http/targets.ts";
import { appendEvent } from "../append.ts";
import { toEvent } from "../outbox.ts";
import { claimFairly } from "./claims.ts";
import { type AttemptOutcome, sendAttempt } from "./send.ts";
import { newAttempt } from "./service.ts";

export interface DeliverySettings extends TargetPolicy {
  /** One attempt's limit (default 10 s). */
  timeoutMs: number;
  /** Wait before attempt 2, 3, …; its length + 1 is the number of attempts (default 5 s … 10 h, 8 attempts). */
  retryDelaysMs: readonly number[];
  /** A hook failing this long without a success is disabled (default 3 days). */
  disableAfterMs: number;
  /** How long a claimed attempt stays claimed (default twice the timeout + 1 s). */
  leaseMs: number;
  /** Attempts in flight at once in this process. */
  concurrency: number;
  /** Attempts in flight at once to one hook, counted over every process; a failing hook gets one. */
  perHook: number;
  /** Interval of a look for due attempts even when nothing asked (retries falling due, other processes' work). */
  sweepMs: number;
}

export const DEFAULT_RETRY_DELAYS_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
export const DEFAULT_DISABLE_AFTER_MS = 3 * 24 * 3_600_000;

interface ClaimedAttempt {
  id: string;
  leaseToken: string;
  attempt: number;
  hook: { id: string; workspace_id: string; url: string; secret: string; failing: boolean };
  eventJson: string;
  eventId: string;
}

interface Log {
  warn(object: object, message: string): void;
}

export class WebhookDeliverer {
  private inFlight = 0;
  /** Attempts in flight in this process, by hook. */
  private readonly inFlightByHook = new Map<string, number>();
  /** The last claim ran out of room with attempts still to take: every freed slot should claim. */
  private starved = false;
  // Slots freed while a claim runs are taken by the next pass: claims batch themselves under load.
  private readonly claims: Coalescer;
  private closed = false;
  private readonly sweep: NodeJS.Timeout;
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  private readonly abort = new AbortController();
  private readonly sending = new Set<Promise<void>>();

  constructor(
    private readonly db: Db,
    private readonly dialect: SqlDialect,
    private readonly settings: DeliverySettings,
    private readonly log: Log,
  ) {
    this.claims = new Coalescer(
      () => this.claimWhileRoom(),
      (error) => this.log.warn({ message: messageOf(error) }, "webhook deliveries: claim failed"),
    );
    this.sweep = setInterval(() => this.kick(), settings.sweepMs).unref();
  }

  /**
   * Looks for due attempts now. Told the hook that has new work (or just finished one), it looks only once that hook
   * has half its limit free here (or the process ran out of room before): a busy hook is refilled in batches, not
   * with a claim per attempt, and its own completions bring the next claim.
   */
  kick(hookId?: string): void {
    if (this.closed) return;
    if (hookId !== undefined && !this.starved && (this.inFlightByHook.get(hookId) ?? 0) > this.settings.perHook / 2) {
      return;
    }
    this.claims.run();
  }

  /** On SQLite one process owns the database: leases left by a previous run are stale at start. */
  async releaseStaleLeases(): Promise<void> {
    if (this.dialect !== "sqlite") return;
    await this.db
      .updateTable("webhook_deliveries")
      .set({ lease_token: null, lease_expires_at: null })
      .where("status", "=", "pending")
      .where("lease_token", "is not", null)
      .execute();
  }

  /** Stops claiming, aborts attempts in flight and hands their claims back. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweep);
    for (const timer of this.retryTimers) clearTimeout(timer);
    this.abort.abort();
    await Promise.allSettled([...this.sending]);
  }

  private async claimWhileRoom(): Promise<void> {
    for (;;) {
      const room = this.settings.concurrency - this.inFlight;
      if (room <= 0) this.starved = true;
      if (this.closed || room <= 0) return;
      const { claimed, more } = await this.claim(room);
      this.starved = more;
      for (const attempt of claimed) this.start(attempt);
      if (!more || claimed.length === 0) return;
    }
  }

  private async claim(room: number): Promise<{ claimed: ClaimedAttempt[]; more: boolean }> {
    const leaseToken = randomUUID();
    const { ids, more } = await claimFairly(this.db, this.dialect, {
      room,
      perHook: this.settings.perHook,
      leaseToken,
      leaseExpiresAt: timestampAt(Date.now() + this.settings.leaseMs),
    });
    return { claimed: await this.read(ids, leaseToken), more };
  }

  /** The claimed attempts with their hooks and events. */
  private async read(ids: string[], leaseToken: string): Promise<ClaimedAttempt[]> {
    if (ids.length === 0) return [];
    const rows = await this.db
      .selectFrom("webhook_deliveries as d")
      .innerJoin("webhooks as w", "w.id", "d.webhook_id")
      .innerJoin("events as e", "e.id", "d.event_id")
      .select(["d.id as attempt_id", "d.attempt", "w.id as hook_id", "w.url", "w.secret", "w.failing_since"])
      .select(["e.id", "e.seq", "e.workspace_id", "e.type", "e.entity_type", "e.entity_id", "e.issue_id"])
      .select(["e.actor_type", "e.actor_id", "e.data", "e.created_at"])
      .where("d.id", "in", ids)
      .where("d.lease_token", "=", leaseToken)
      .execute();
    return rows.map(({ attempt_id, attempt, hook_id, url, secret, failing_since, ...event }) => ({
      id: attempt_id,
      leaseToken,
      attempt: Number(attempt),
      hook: { id: hook_id, workspace_id: event.workspace_id, url, secret, failing: failing_since !== null },
      eventId: event.id,
      eventJson: JSON.stringify(toEvent(event)),
    }));
  }

  private start(attempt: ClaimedAttempt): void {
    const hookId = attempt.hook.id;
    this.inFlight++;
    this.inFlightByHook.set(hookId, (this.inFlightByHook.get(hookId) ?? 0) + 1);
    const sending = this.deliver(attempt)
      .catch((error: unknown) => this.log.warn({ message: messageOf(error) }, "webhook delivery failed to record"))
      .finally(() => {
        this.inFlight--;
        const left = (this.inFlightByHook.get(hookId) ?? 1) - 1;
        if (left === 0) this.inFlightByHook.delete(hookId);
        else this.inFlightByHook.set(hookId, left);
        this.sending.delete(sending);
        this.kick(hookId);
      });
    this.sending.add(sending);
  }

  private async deliver(attempt: ClaimedAttempt): Promise<void> {
    const target = await checkTarget(attempt.hook.url, this.settings);
    let outcome: AttemptOutcome;
    if (!target.ok) outcome = { ok: false, responseStatus: null, error: `Refused: ${target.problem}`, durationMs: 0 };
    else {
      const sentAt = new Date();
      const signature = new StandardWebhook(attempt.hook.secret).sign(attempt.eventId, sentAt, attempt.eventJson);
      outcome = await sendAttempt({
        url: target.url,
        address: target.address,
        body: attempt.eventJson,
        timeoutMs: this.settings.timeoutMs,
        signal: this.abort.signal,
        headers: {
          "content-type": "application/json",
          "user-agent": "agent-platform-webhooks",
          "webhook-id": attempt.eventId,
          "webhook-timestamp": String(Math.floor(sentAt.getTime() / 1000)),
          "webhook-signature": signature,
        },
      });
    }
    if (this.closed && !outcome.ok) {
      await this.release(attempt);
      return;
    }
    await this.record(attempt, outcome);
  }

  /** Hands an attempt cut short by shutdown back to the queue, due at once. */
  private async release(attempt: ClaimedAttempt): Promise<void> {
    await this.db
      .updateTable("webhook_deliveries")
      .set({ lease_token: null, lease_expires_at: null })
      .where("id", "=", attempt.id)
      .where("lease_token", "=", attempt.leaseToken)
      .execute();
  }

  private async record(attempt: ClaimedAttempt, outcome: AttemptOutcome): Promise<void> {
    const at = now();
    const finish = (db: Db) =>
      db
        .updateTable("webhook_deliveries")
        .set({
          status: outcome.ok ? "succeeded" : "failed",
          response_status: outcome.responseStatus,
          error: outcome.error,
          duration_ms: outcome.durationMs,
          finished_at: at,
          lease_token: null,
          lease_expires_at: null,
        })
        .where("id", "=", attempt.id)
        // The lease ran out and another claim took the attempt over: that one records it.
        .where("lease_token", "=", attempt.leaseToken)
        .executeTakeFirst();
    // The common case, a success at a healthy hook, is one statement.
    if (outcome.ok && !attempt.hook.failing) {
      await finish(this.db);
      return;
    }
    const retryDelay = this.settings.retryDelaysMs[attempt.attempt - 1];
    const disabled = await this.db.transaction().execute(async (trx) => {
      // The hook's workspace and the hook before the attempt (db/lock-order.ts); gone, there is nothing to record.
      if (!(await holdWorkspace(trx, attempt.hook.workspace_id, { webhookId: attempt.hook.id }))) return false;
      if (Number((await finish(trx)).numUpdatedRows) === 0) return false;
      if (outcome.ok) {
        await trx.updateTable("webhooks").set({ failing_since: null }).where("id", "=", attempt.hook.id).execute();
        return false;
      }
      if (retryDelay !== undefined) {
        await trx
          .insertInto("webhook_deliveries")
          .values(newAttempt(attempt.hook, attempt.eventId, attempt.attempt + 1, timestampAt(Date.now() + retryDelay)))
          .execute();
      }
      return this.noteFailure(trx, attempt.hook, at);
    });
    if (!outcome.ok && retryDelay !== undefined && !disabled) this.kickAfter(retryDelay);
  }

  /** Marks the hook failing since now, unless it already was; disables it once that has lasted long enough. */
  private async noteFailure(trx: Db, hook: ClaimedAttempt["hook"], at: string): Promise<boolean> {
    const row = await trx
      .selectFrom("webhooks")
      .select(["failing_since", "enabled"])
      .where("id", "=", hook.id)
      .executeTakeFirst();
    if (!row || Number(row.enabled) !== 1) return false;
    if (row.failing_since === null) {
      await trx.updateTable("webhooks").set({ failing_since: at }).where("id", "=", hook.id).execute();
      return false;
    }
    const failingForMs = Date.parse(`${at}Z`) - Date.parse(`${row.failing_since}Z`);
    if (failingForMs < this.settings.disableAfterMs) return false;
    const reason = `Every attempt failed since ${row.failing_since}`;
    await trx
      .updateTable("webhooks")
      .set({ enabled: 0, disabled_reason: reason, updated_at: at })
      .where("id", "=", hook.id)
      .execute();
    await appendEvent(trx, {
      workspaceId: hook.workspace_id,
      type: "webhook.disabled",
      entityType: "webhook",
      entityId: hook.id,
      actor: null,
      data: { url: hook.url, reason },
    });
    return true;
  }

  private kickAfter(delayMs: number): void {
    if (delayMs >= this.settings.sweepMs || this.closed) return;
    const timer = setTimeout(() => {
      this.retryTimers.delete(timer);
      this.kick();
    }, delayMs).unref();
    this.retryTimers.add(timer);
  }
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
