// The issue template: `{{date}}`, `{{datetime}}`, `{{autopilot}}`, `{{trigger}}`, `{{payload.<path>}}` and
// `{{event.<path>}}` replaced in one pass, so a value is inserted as text and never read as a placeholder itself.

export interface TemplateContext {
  /** When it fired. */
  firedAt: Date;
  /** The zone `{{date}}` and `{{datetime}}` are written in: the schedule's, else UTC. */
  timezone: string;
  autopilot: string;
  trigger: string;
  payload?: unknown;
  event?: unknown;
}

const PLACEHOLDER = /\{\{\s*([A-Za-z_][\w-]*(?:\.[\w-]+)*)\s*\}\}/g;

export function renderTemplate(template: string, context: TemplateContext): string {
  return template.replace(PLACEHOLDER, (whole, name: string) => {
    const [root, ...path] = name.split(".");
    switch (root) {
      case "date":
        return path.length === 0 ? zonedDateTime(context.firedAt, context.timezone).slice(0, 10) : whole;
      case "datetime":
        return path.length === 0 ? zonedDateTime(context.firedAt, context.timezone) : whole;
      case "autopilot":
        return path.length === 0 ? context.autopilot : whole;
      case "trigger":
        return path.length === 0 ? context.trigger : whole;
      case "payload":
        return asText(valueAt(context.payload, path));
      case "event":
        return asText(valueAt(context.event, path));
      default:
        return whole;
    }
  });
}

function valueAt(root: unknown, path: string[]): unknown {
  let value = root;
  for (const key of path) {
    if (typeof value !== "object" || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function asText(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

/** `2026-03-29T09:00:00+02:00` (`Z` in UTC): the moment as the zone's wall clock shows it. */
export function zonedDateTime(at: Date, timezone: string): string {
  const parts = new Intl.DateTimeFormat("en-CA", {
    timeZone: timezone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: "h23",
    timeZoneName: "longOffset",
  }).formatToParts(at);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? "";
  const offset = part("timeZoneName").replace(/^GMT/, "");
  const zone = offset === "" ? "Z" : offset;
  return `${part("year")}-${part("month")}-${part("day")}T${part("hour")}:${part("minute")}:${part("second")}${zone}`;
}
