import type { Selectable } from "kysely";
// Outbox → attempts: each enabled hook keeps its position in the outbox (`last_seq`); new events it wants become
// first attempts, and the position moves, in one transaction. With several processes on one PostgreSQL the hook row
// is locked (SKIP LOCKED): one process queues a hook's events, the others pass it by. Nothing is queued twice and,
// since the position only moves with the attempts, nothing is skipped, whatever crashes when.
import type { Db, SqlDialect } from "../../db/index.ts";
import { holdWorkspace } from "../../db/lock-order.ts";
import type { WebhooksTable } from "../../db/schema.ts";
import { fromJson, now } from "../../db/values.ts";
import { CoalescedRuns } from "../coalesced-runs.ts";
import { readEvents } from "../outbox.ts";
import { matchesTypes } from "../types.ts";
import { WorkspaceInterest } from "../workspace-interest.ts";
import { newAttempt } from "./service.ts";

const EVENTS_PER_TRANSACTION = 500;
/** Rows per INSERT: 14 columns each, well inside both databases' parameter limits. */
const ROWS_PER_INSERT = 200;

export class WebhookFanOut {
  /** Workspaces being worked on in this process. */
  private readonly runs: CoalescedRuns;
  /** What each workspace's enabled hooks want: every hook change is a `webhook.*` event. */
  private readonly interest = new WorkspaceInterest((type) => type.startsWith("webhook."));

  constructor(
    private readonly db: Db,
    private readonly dialect: SqlDialect,
    /** Called after attempts were queued for the hook, so they are sent at once. */
    private readonly queued: (hookId: string) => void,
    onError: (error: unknown) => void,
  ) {
    this.runs = new CoalescedRuns((workspaceId) => this.queueWorkspace(workspaceId), onError);
  }

  /**
   * The workspace has new events (`event`: the newest, when the hint carried it): queue them for its hooks. Hints
   * during a run make one more run, not one each.
   */
  hint(workspaceId: string, event?: { type: string }): void {
    if (this.interest.concerns(workspaceId, event)) this.runs.hint(workspaceId);
  }

  /** Forgets what the hooks want (the hints may have missed a change: the listener reconnected). */
  forget(): void {
    this.interest.forget();
  }

  /** Every workspace with an enabled hook behind its last event (start-up, missed hints). */
  async sweep(): Promise<void> {
    const behind = await this.hooksBehind().select("webhooks.workspace_id").distinct().execute();
    for (const { workspace_id } of behind) this.hint(workspace_id);
  }

  private hooksBehind() {
    return this.db
      .selectFrom("webhooks")
      .innerJoin("event_counters", "event_counters.workspace_id", "webhooks.workspace_id")
      .where("webhooks.enabled", "=", 1)
      .whereRef("webhooks.last_seq", "<", "event_counters.last_seq");
  }

  private async queueWorkspace(workspaceId: string): Promise<void> {
    const mark = this.interest.mark();
    const hooks = await this.db
      .selectFrom("webhooks")
      .leftJoin("event_counters", "event_counters.workspace_id", "webhooks.workspace_id")
      .select(["webhooks.id", "webhooks.types", "webhooks.last_seq", "event_counters.last_seq as head"])
      .where("webhooks.enabled", "=", 1)
      .where("webhooks.workspace_id", "=", workspaceId)
      .execute();
    this.interest.remember(
      workspaceId,
      mark,
      hooks.map((hook) => fromJson<string[]>(hook.types, [])),
    );
    for (const hook of hooks) {
      if (Number(hook.last_seq) < Number(hook.head ?? 0)) while (await this.queueBatch(workspaceId, hook.id)) {}
    }
  }

  /** Queues the next batch of the hook's events; true when there may be more. */
  private async queueBatch(workspaceId: string, hookId: string): Promise<boolean> {
    const result = await this.db.transaction().execute(async (trx) => {
      // The workspace first, as its deletion locks it (db/lock-order.ts): a deleted one has no hooks to queue for.
      if (!(await holdWorkspace(trx, workspaceId))) return { more: false, queued: 0 };
      let select = trx.selectFrom("webhooks").selectAll().where("id", "=", hookId).where("enabled", "=", 1);
      // Another process queueing the hook, or the hook's deletion, is passed by; the deliveries' own writers (which
      // hold the hook's key share) are not.
      if (this.dialect === "postgres") select = select.forNoKeyUpdate().skipLocked();
      const hook: Selectable<WebhooksTable> | undefined = await select.executeTakeFirst();
      if (!hook) return { more: false, queued: 0 };
      const events = await readEvents(trx, hook.workspace_id, {
        afterSeq: Number(hook.last_seq),
        limit: EVENTS_PER_TRANSACTION,
      });
      if (events.length === 0) return { more: false, queued: 0 };
      const types = fromJson<string[]>(hook.types, []);
      const dueAt = now();
      const attempts = events
        .filter((event) => matchesTypes(types, event.type))
        .map((e) => newAttempt(hook, e.id, 1, dueAt));
      for (let start = 0; start < attempts.length; start += ROWS_PER_INSERT) {
        await trx
          .insertInto("webhook_deliveries")
          .values(attempts.slice(start, start + ROWS_PER_INSERT))
          .execute();
      }
      await trx
        .updateTable("webhooks")
        .set({ last_seq: events.at(-1)!.seq })
        .where("id", "=", hook.id)
        .execute();
      return { more: events.length === EVENTS_PER_TRANSACTION, queued: attempts.length };
    });
    if (result.queued > 0) this.queued(hookId);
    return result.more;
  }
}
