// Schedules, on every process: a loop that sleeps until the earliest `next_fire_at` of any enabled autopilot (or a
// minute at most), woken early when autopilots change. Whichever process gets there first fires; the unique claim
// per (autopilot, trigger, fire time) makes the others' attempts no-ops, so each fire time fires once. An autopilot
// remembers up to when its schedules were handled (`scheduled_until`): after downtime only the latest missed fire
// time of each schedule fires, once.
import type { Db } from "../db/index.ts";
import { indexedValue, timestampAt } from "../db/values.ts";
import { changingIssueLists } from "../platform/issues/list-version.ts";
import { latestFireTime } from "./cron.ts";
import { type FireSettings, fireIn, lockAutopilot } from "./fire.ts";
import { dateOf, nextFireAt, triggersOf } from "./rows.ts";

const MAX_SLEEP_MS = 60_000;
const DUE_PER_PASS = 100;

export interface SchedulerLog {
  error(object: object, message: string): void;
}

export class AutopilotScheduler {
  private timer: NodeJS.Timeout | undefined;
  private pass: Promise<void> | undefined;
  private again = false;
  private closed = false;

  constructor(
    private readonly db: Db,
    private readonly settings: FireSettings,
    private readonly log: SchedulerLog,
  ) {}

  /** Look now: at start, and whenever autopilots may have changed. Wakes during a pass make one more pass. */
  wake(): void {
    if (this.closed) return;
    if (this.pass) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.pass = this.run().finally(() => {
      this.pass = undefined;
      // A wake between the pass's last look and here would otherwise be lost.
      if (this.again) this.wake();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.pass;
  }

  private async run(): Promise<void> {
    let sleepMs = MAX_SLEEP_MS;
    do {
      this.again = false;
      try {
        sleepMs = await this.fireDue();
      } catch (error) {
        if (!this.closed) this.log.error({ message: String(error) }, "autopilots: schedule pass failed");
        sleepMs = 1_000;
      }
    } while (this.again && !this.closed);
    if (!this.closed) this.timer = setTimeout(() => this.wake(), sleepMs).unref();
  }

  /** Fires what is due; returns how long to sleep until the next fire time. */
  private async fireDue(): Promise<number> {
    for (;;) {
      const due = await this.db
        .selectFrom("autopilots")
        .select(["id", "workspace_id"])
        .where("enabled", "=", indexedValue(1 as const))
        .where("next_fire_at", "<=", timestampAt(Date.now()))
        .orderBy("next_fire_at")
        .limit(DUE_PER_PASS)
        .execute();
      for (const row of due) {
        if (this.closed) return MAX_SLEEP_MS;
        await runSchedules(this.db, row.workspace_id, row.id, this.settings, new Date());
      }
      if (due.length < DUE_PER_PASS) break;
    }
    const next = await this.db
      .selectFrom("autopilots")
      .select((eb) => eb.fn.min("next_fire_at").as("next"))
      .where("enabled", "=", indexedValue(1 as const))
      .executeTakeFirst();
    if (!next?.next) return MAX_SLEEP_MS;
    return Math.min(MAX_SLEEP_MS, Math.max(0, dateOf(String(next.next)).getTime() - Date.now()));
  }
}

/**
 * In one transaction: fires each schedule's latest fire time in (`scheduled_until`, `at`] (claim
 * `schedule:<n>:<time>`), then moves `scheduled_until` to `at` and `next_fire_at` to the next fire time.
 */
export async function runSchedules(
  db: Db,
  workspaceId: string,
  autopilotId: string,
  settings: FireSettings,
  at: Date,
): Promise<void> {
  await changingIssueLists(db, workspaceId, async (trx) => {
    const row = await lockAutopilot(trx, { workspaceId, autopilotId });
    if (!row || Number(row.enabled) !== 1) return;
    const handledUntil = dateOf(row.scheduled_until);
    if (at.getTime() <= handledUntil.getTime()) return;
    const triggers = triggersOf(row);
    for (const [index, trigger] of triggers.entries()) {
      if (trigger.kind !== "schedule") continue;
      const fireTime = latestFireTime(trigger, handledUntil, at);
      if (!fireTime) continue;
      await fireIn(
        trx,
        {
          workspaceId,
          autopilotId,
          triggerKind: "schedule",
          triggerIndex: index,
          claimKey: `schedule:${index}:${fireTime.toISOString()}`,
          firedAt: fireTime,
          timezone: trigger.timezone,
        },
        settings,
      );
    }
    await trx
      .updateTable("autopilots")
      .set({ scheduled_until: timestampAt(at.getTime()), next_fire_at: nextFireAt(triggers, true, at) })
      .where("id", "=", row.id)
      .execute();
  });
}
