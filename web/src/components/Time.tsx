// Times as people read them: a <time> whose datetime carries its zone, its text relative ("just now", "5 min ago",
// "yesterday") or local (the browser's time zone), and the full local date and time as its title. The API's times
// without a zone are UTC. One shared timer keeps every relative text current.
import { useSyncExternalStore } from "react";

/** The API's time as an ISO string with its zone: "2026-03-10T03:30:00.123456" is UTC. */
export function withZone(iso: string): string {
  return /(Z|[+-]\d\d:?\d\d)$/.test(iso) ? iso : `${iso}Z`;
}

const clockListeners = new Set<() => void>();
let minute = Math.floor(Date.now() / 60_000);
let timer: ReturnType<typeof setInterval> | undefined;

function subscribe(listener: () => void): () => void {
  clockListeners.add(listener);
  timer ??= setInterval(() => {
    const next = Math.floor(Date.now() / 60_000);
    if (next === minute) return;
    minute = next;
    for (const each of clockListeners) each();
  }, 15_000);
  return () => {
    clockListeners.delete(listener);
    if (clockListeners.size === 0) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}

const fullDate = new Intl.DateTimeFormat(undefined, { dateStyle: "full", timeStyle: "long" });
const clockTime = new Intl.DateTimeFormat(undefined, { hour: "numeric", minute: "2-digit" });
const dayInYear = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric" });
const dayAndYear = new Intl.DateTimeFormat(undefined, { year: "numeric", month: "short", day: "numeric" });

const startOfDay = (date: Date) => new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime();

/** "just now", "5 min ago", "3 h ago" within the day; "yesterday, 9:14 PM"; else the local date. */
function relativeText(at: Date, now: Date): string {
  const seconds = Math.round((now.getTime() - at.getTime()) / 1000);
  if (seconds < 0) return `${dayAndYear.format(at)}, ${clockTime.format(at)}`;
  if (seconds < 60) return "just now";
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  const days = Math.round((startOfDay(now) - startOfDay(at)) / 86_400_000);
  if (days === 0) return `${Math.floor(seconds / 3600)} h ago`;
  if (days === 1) return `yesterday, ${clockTime.format(at)}`;
  return at.getFullYear() === now.getFullYear() ? dayInYear.format(at) : dayAndYear.format(at);
}

/** A time of the API, shown relative to now. */
export function Time({ iso, className }: { iso: string; className?: string }) {
  useSyncExternalStore(subscribe, () => minute);
  const zoned = withZone(iso);
  const at = new Date(zoned);
  if (Number.isNaN(at.getTime())) return <span className={className}>{iso}</span>;
  return (
    <time dateTime={zoned} title={fullDate.format(at)} className={className}>
      {relativeText(at, new Date())}
    </time>
  );
}

/** A calendar day (a due date): "Mar 5" this year, "Mar 5, 2027" otherwise; the day does not move with the zone. */
export function DateOnly({ day, className }: { day: string; className?: string }) {
  const [year, month, date] = day.slice(0, 10).split("-").map(Number) as [number, number, number];
  const local = new Date(year, month - 1, date);
  const text = year === new Date().getFullYear() ? dayInYear.format(local) : dayAndYear.format(local);
  return (
    <time dateTime={day.slice(0, 10)} title={new Intl.DateTimeFormat(undefined, { dateStyle: "full" }).format(local)}>
      <span className={className}>{text}</span>
    </time>
  );
}
