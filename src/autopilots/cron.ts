// Schedules: croner reads the cron (five fields, or six with seconds first) in the trigger's IANA time zone, so a
// daylight-saving change neither skips nor doubles a fire.
import { Cron } from "croner";

export interface ScheduleSpec {
  cron: string;
  timezone: string;
}

/** Whether `timezone` names an IANA zone this runtime knows. */
export function isKnownTimeZone(timezone: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: timezone });
    return true;
  } catch {
    return false;
  }
}

/** What is wrong with the cron expression, or undefined when it reads. */
export function cronProblem(expression: string): string | undefined {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5 && fields.length !== 6) {
    return "Must be a cron of five fields (minute hour day month weekday), or six with seconds first";
  }
  try {
    new Cron(expression, { paused: true, timezone: "UTC" });
    return undefined;
  } catch (error) {
    return `Not a valid cron: ${error instanceof Error ? error.message.replace(/^CronPattern: /, "") : "unreadable"}`;
  }
}

const scheduleOf = (spec: ScheduleSpec) => new Cron(spec.cron, { paused: true, timezone: spec.timezone });

/** The first fire time strictly after `after`, or null when the cron never fires again. */
export function nextFireTime(spec: ScheduleSpec, after: Date): Date | null {
  return scheduleOf(spec).nextRun(after);
}

/** The latest fire time in (`after`, `upTo`], if any: what a fire due now (or missed while down) is for. */
export function latestFireTime(spec: ScheduleSpec, after: Date, upTo: Date): Date | undefined {
  // croner's previous runs are strictly before the date given: a pass at the fire time's very millisecond is for it.
  const [latest] = scheduleOf(spec).previousRuns(1, new Date(upTo.getTime() + 1));
  return latest && latest.getTime() > after.getTime() && latest.getTime() <= upTo.getTime() ? latest : undefined;
}
