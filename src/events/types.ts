// Event types: `<entity>.<verb>`. Every activity action is one; tasks, runs and approvals add theirs.
import { z } from "zod";
import { text } from "../api/fields.ts";
import { EVENT_TYPES } from "./event-types.ts";

export { EVENT_TYPES } from "./event-types.ts";

/** A known type, or any other `<entity>.<verb>` a newer feature writes (the filter takes both). */
export type EventType = (typeof EVENT_TYPES)[number] | (string & {});

const TYPE = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;
const PATTERN = /^[a-z][a-z0-9_]*\.\*$/;

/** One entry of a `types` filter: an exact type (`issue.created`) or every type of an entity (`issue.*`). */
export const typePattern = text(100).refine((value) => TYPE.test(value) || PATTERN.test(value), {
  message: "Must be an event type such as issue.created, or issue.* for every issue event",
});

export const KNOWN_TYPES = `Known types: ${EVENT_TYPES.map((type) => `\`${type}\``).join(", ")}.`;

export const TYPES_DESCRIPTION =
  "Event types, e.g. `issue.created`, or `issue.*` for every type of an entity; empty or absent means all. " +
  KNOWN_TYPES;

/** Several types comma-separated (`types=issue.*,comment.created`), or the parameter repeated. */
export const typesQuery = z
  .union([text(4000), z.array(text(4000))])
  .transform((value) =>
    (Array.isArray(value) ? value.join(",") : value)
      .split(",")
      .map((part) => part.trim())
      .filter((part) => part !== ""),
  )
  .pipe(z.array(typePattern).max(100))
  .optional()
  .describe(TYPES_DESCRIPTION);

/** Whether `type` passes the filter `patterns` (empty = everything). */
export function matchesTypes(patterns: readonly string[], type: string): boolean {
  if (patterns.length === 0) return true;
  for (const pattern of patterns) {
    if (pattern === type) return true;
    if (pattern.endsWith(".*") && type.startsWith(pattern.slice(0, -1))) return true;
  }
  return false;
}
