// Event triggers, read from the outbox: each enabled autopilot keeps its position in it (`last_seq`), so an event
// committed while every process was down still fires once they are back. A batch of events that fires nothing (the
// usual case) only moves the position; one that fires is handled in a transaction that holds the workspace, then
// the autopilot, and moves the position with the fires it made — a process that finds the position moved meanwhile
// leaves the batch to whoever moved it, and the claims (`event:<id>`) hold even so. Task failures of its own issues
// are read here too (self-pause).
import type { Db } from "../db/index.ts";
import type { AutopilotsTable } from "../db/schema.ts";
import { CoalescedRuns } from "../events/coalesced-runs.ts";
import { readEvents } from "../events/outbox.ts";
import { WorkspaceInterest } from "../events/workspace-interest.ts";
import { changingIssueLists } from "../platform/issues/list-version.ts";
import { concernsItsFailures, factsFor, firedTrigger } from "./event-match.ts";
import { type FireSettings, fireIn, lockAutopilot } from "./fire.ts";
import { triggersOf } from "./rows.ts";
import { pauseIfFailing } from "./self-pause.ts";

const EVENTS_PER_BATCH = 200;

/** The events that change an autopilot's triggers or whether it is enabled (its fires and tokens change neither). */
export const AUTOPILOT_CHANGES = new Set([
  "autopilot.created",
  "autopilot.updated",
  "autopilot.deleted",
  "autopilot.paused",
]);

/** What an enabled autopilot reads events for: its event triggers' types, and its own issues' task failures. */
const wantedBy = (row: Pick<AutopilotsTable, "triggers">): string[][] => [
  ...triggersOf(row).flatMap((trigger) => (trigger.kind === "event" ? [trigger.types] : [])),
  ["task.failed"],
];

export class EventTriggerConsumer {
  /** Workspaces being read in this process. */
  private readonly reads: CoalescedRuns;
  /** What each workspace's enabled autopilots read events for. */
  private readonly interest = new WorkspaceInterest((type) => AUTOPILOT_CHANGES.has(type));

  constructor(
    private readonly db: Db,
    private readonly settings: FireSettings,
    onError: (error: unknown) => void,
  ) {
    this.reads = new CoalescedRuns((workspaceId) => this.consumeWorkspace(workspaceId), onError);
  }

  /**
   * The workspace has new events (`event`: the newest, when the hint carried it); one no autopilot there can want is
   * left to the next read. Hints during a read make one more read, not one each.
   */
  hint(workspaceId: string, event?: { type: string }): void {
    if (this.interest.concerns(workspaceId, event)) this.reads.hint(workspaceId);
  }

  /** Forgets what the autopilots want (the hints may have missed a change: the listener reconnected). */
  forget(): void {
    this.interest.forget();
  }

  /** Every workspace with an enabled autopilot behind its last event (start-up, missed hints). */
  async sweep(): Promise<void> {
    const behind = await this.behind().select("autopilots.workspace_id").distinct().execute();
    for (const { workspace_id } of behind) this.reads.hint(workspace_id);
  }

  /** Resolves once nothing is being read in this process (tests, shutdown). */
  idle(): Promise<void> {
    return this.reads.idle();
  }

  private behind() {
    return this.db
      .selectFrom("autopilots")
      .innerJoin("event_counters", "event_counters.workspace_id", "autopilots.workspace_id")
      .where("autopilots.enabled", "=", 1)
      .whereRef("autopilots.last_seq", "<", "event_counters.last_seq");
  }

  private async consumeWorkspace(workspaceId: string): Promise<void> {
    const mark = this.interest.mark();
    const autopilots = await this.db
      .selectFrom("autopilots")
      .leftJoin("event_counters", "event_counters.workspace_id", "autopilots.workspace_id")
      .select(["autopilots.id", "autopilots.triggers", "autopilots.last_seq", "event_counters.last_seq as head"])
      .where("autopilots.enabled", "=", 1)
      .where("autopilots.workspace_id", "=", workspaceId)
      .execute();
    this.interest.remember(workspaceId, mark, autopilots.flatMap(wantedBy));
    for (const { id, last_seq, head } of autopilots) {
      if (Number(last_seq) < Number(head ?? 0)) while (await this.consumeBatch(workspaceId, id)) {}
    }
  }

  /** Reads the autopilot's next events; true when there may be more. */
  private async consumeBatch(workspaceId: string, autopilotId: string): Promise<boolean> {
    const seen = await this.db.selectFrom("autopilots").selectAll().where("id", "=", autopilotId).executeTakeFirst();
    if (!seen || Number(seen.enabled) !== 1) return false;
    const from = Number(seen.last_seq);
    const events = await readEvents(this.db, workspaceId, { afterSeq: from, limit: EVENTS_PER_BATCH });
    if (events.length === 0) return false;
    const to = events.at(-1)!.seq;
    const facts = await factsFor(this.db, seen, events);
    const acts = events.some(
      (event) => firedTrigger(seen, event, facts) !== undefined || concernsItsFailures(event, facts),
    );
    if (!acts) {
      const moved = await this.db
        .updateTable("autopilots")
        .set({ last_seq: to })
        .where("id", "=", autopilotId)
        .where("last_seq", "=", from)
        .executeTakeFirst();
      return Number(moved.numUpdatedRows) > 0 && events.length === EVENTS_PER_BATCH;
    }
    return changingIssueLists(this.db, workspaceId, async (trx) => {
      const autopilot = await lockAutopilot(trx, { workspaceId, autopilotId });
      if (!autopilot || Number(autopilot.enabled) !== 1 || Number(autopilot.last_seq) !== from) return false;
      await this.act(trx, autopilot, events);
      await trx.updateTable("autopilots").set({ last_seq: to }).where("id", "=", autopilotId).execute();
      return events.length === EVENTS_PER_BATCH;
    });
  }

  private async act(trx: Db, autopilot: AutopilotsTable, events: Awaited<ReturnType<typeof readEvents>>) {
    let facts = await factsFor(trx, autopilot, events);
    for (const event of events) {
      const triggerIndex = firedTrigger(autopilot, event, facts);
      if (triggerIndex !== undefined) {
        const outcome = await fireIn(
          trx,
          {
            workspaceId: autopilot.workspace_id,
            autopilotId: autopilot.id,
            triggerKind: "event",
            triggerIndex,
            claimKey: `event:${event.id}`,
            firedAt: new Date(),
            timezone: "UTC",
            event,
          },
          this.settings,
        );
        // Its own new issue is now one the loop guard must know.
        if (outcome.status === "issue_created") facts = await factsFor(trx, autopilot, events);
      }
      if (concernsItsFailures(event, facts) && (await pauseIfFailing(trx, autopilot))) return;
    }
  }
}
