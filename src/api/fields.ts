// Building blocks shared by the workspace resources' schemas and services.
import { z } from "zod";
import { ACTOR_TYPES } from "../db/enums.ts";

// PostgreSQL rejects U+0000 in text, so it must be refused at validation (422) rather than reach the database (500).
const hasNoNul = (value: string) => !value.includes("\u0000");
// A lone surrogate is not Unicode: PostgreSQL's driver would store U+FFFD instead, SQLite the broken text.
const isWellFormed = (value: string) => !/\p{Cs}/u.test(value);

/**
 * A string the database can store as given: no NUL characters, no lone surrogates, at most `max` characters. (HTTP
 * bodies are checked as a whole by the JSON parser; this covers the same fields reached through tools.)
 */
export const text = (max: number) =>
  z
    .string()
    .max(max)
    .refine(hasNoNul, { message: "Must not contain NUL characters" })
    .refine(isWellFormed, { message: "Must not contain lone UTF-16 surrogates (not valid Unicode)" });

/** A required, non-blank title or name. */
export const title = (max = 500) => text(max).trim().min(1);

/** An id in a request body; whether it exists (in this workspace) is the service's business. */
export const idField = text(100);

/** `member` (a user who belongs to the workspace) or `agent` (an agent of the workspace). */
export const actorTypeSchema = z.enum(ACTOR_TYPES);

/** A real calendar day: `Date` would roll 2024-02-30 over to March 1st. */
function isCalendarDay(value: string): boolean {
  const [year, month, day] = value.slice(0, 10).split("-").map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** `YYYY-MM-DD` or an ISO 8601 date-time. */
export const dateText = text(40).refine(
  (value) =>
    /^\d{4}-\d\d-\d\d([T ]\d\d:\d\d(:\d\d(\.\d{1,6})?)?(Z|[+-]\d\d:?\d\d)?)?$/.test(value) &&
    !Number.isNaN(Date.parse(value)) &&
    isCalendarDay(value),
  { message: "Must be a date (YYYY-MM-DD) or an ISO 8601 date-time" },
);

/**
 * A list filter that takes several values comma-separated (`status=todo,done`), or the parameter repeated.
 * Empty items are dropped; no items at all means no filter.
 */
export const csvFilter = <T extends z.ZodType<string, string>>(item: T) =>
  z
    .union([text(2000), z.array(text(2000))])
    .transform((value) =>
      (Array.isArray(value) ? value.join(",") : value)
        .split(",")
        .map((part) => part.trim())
        .filter((part) => part !== ""),
    )
    .pipe(z.array(item))
    .optional();
