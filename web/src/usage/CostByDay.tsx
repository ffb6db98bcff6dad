// The month's cost by day as plain SVG bars (no chart library): one bar per day of the month, an image named "Cost by
// day" for screen readers, whose numbers are in the by-day table beside it. Each bar's title gives its day and cost.
import type { UsageRow } from "../api-types.ts";
import { usd } from "./money.ts";

const BAR = 10;
const GAP = 2;
const HEIGHT = 100;

/** `YYYY-MM-DD` of each day of the month (UTC) that starts at `monthStart` (epoch ms). */
export function daysOfMonth(monthStart: number): string[] {
  const start = new Date(monthStart);
  const count = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 0)).getUTCDate();
  return Array.from({ length: count }, (_, index) =>
    new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), index + 1)).toISOString().slice(0, 10),
  );
}

export function CostByDay({ days, rows }: { days: string[]; rows: UsageRow[] }) {
  const cost = new Map(rows.map((row) => [row.key, row.cost_usd]));
  const most = Math.max(0, ...rows.map((row) => row.cost_usd));
  const width = days.length * (BAR + GAP);
  const dayNumber = (day: string) => String(Number(day.slice(8, 10)));
  return (
    <div className="cost-chart">
      <svg
        role="img"
        aria-label="Cost by day"
        viewBox={`0 0 ${width} ${HEIGHT}`}
        preserveAspectRatio="none"
        width="100%"
        height="120"
      >
        <line x1="0" y1={HEIGHT - 0.5} x2={width} y2={HEIGHT - 0.5} className="axis" />
        {days.map((day, index) => {
          const value = cost.get(day) ?? 0;
          // A day with any cost shows at least a sliver, so it never looks like a day of none.
          const height = most === 0 || value === 0 ? 0 : Math.max(2, (value / most) * (HEIGHT - 4));
          return (
            <rect key={day} x={index * (BAR + GAP) + GAP / 2} y={HEIGHT - height} width={BAR} height={height}>
              <title>{`${day}: ${usd(value)}`}</title>
            </rect>
          );
        })}
      </svg>
      <div className="chart-axis muted" aria-hidden="true">
        <span>{dayNumber(days[0]!)}</span>
        <span>{most > 0 ? `highest ${usd(most)}` : "no cost yet"}</span>
        <span>{dayNumber(days.at(-1)!)}</span>
      </div>
    </div>
  );
}
