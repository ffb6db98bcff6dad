// The calendar month (UTC) the usage views show, as GET usage takes it: [from, to) dates.

export interface Month {
  /** Epoch ms of the first day, 00:00 UTC. */
  start: number;
  /** `YYYY-MM-DD` of the first day, and of the first day of the next month. */
  from: string;
  to: string;
  /** "March 2026". */
  title: string;
}

const monthTitle = new Intl.DateTimeFormat(undefined, { month: "long", year: "numeric", timeZone: "UTC" });

export function currentMonth(at = new Date()): Month {
  const start = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1);
  const next = Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1);
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  return { start, from: day(start), to: day(next), title: monthTitle.format(start) };
}

/** GET usage for this month, grouped. */
export const usagePath = (workspaceId: string, month: Month, group: "agent" | "day" | "model" | "issue") =>
  `workspaces/${workspaceId}/usage?group_by=${group}&from=${month.from}&to=${month.to}`;
