import { z } from "zod";
import { pageQuery } from "../api/pagination.ts";
import { KNOWN_TYPES, typesQuery } from "./types.ts";

export const eventSchema = z
  .object({
    id: z.string(),
    seq: z.number().int().describe("Position in the workspace's stream: 1, 2, 3… without gaps"),
    workspace_id: z.string(),
    type: z
      .string()
      .describe(`\`<entity>.<verb>\`: an activity action, or a task, run or approval change. ${KNOWN_TYPES}`),
    entity_type: z.string(),
    entity_id: z.string().nullable(),
    issue_id: z.string().nullable(),
    actor_type: z
      .string()
      .describe("`member`, `agent`, `autopilot` (its fires), or `system` for the platform's own changes"),
    actor_id: z.string().nullable(),
    data: z.record(z.string(), z.unknown()).describe("The change: for activity actions, the activity entry's details"),
    created_at: z.string(),
  })
  .meta({ id: "Event" });

const afterSeq = z.coerce
  .number()
  .int()
  .min(0)
  .optional()
  .describe("Only events with a larger seq (the last seq you have seen)");

export const listEventsQuery = pageQuery.extend({ after_seq: afterSeq, types: typesQuery });

export const streamQuery = z.object({
  after_seq: afterSeq,
  types: typesQuery,
  ticket: z.string().max(2000).optional().describe("A ticket from POST events/tickets, for clients without headers"),
});

// Loose: a header schema's output replaces request.headers, and every other header must stay.
export const streamHeaders = z.looseObject({
  "last-event-id": z.coerce
    .number()
    .int()
    .min(0)
    .optional()
    .describe("The last `id:` received; the stream resumes after it (wins over after_seq)"),
});

export const ticketSchema = z
  .object({
    ticket: z.string().describe("Pass as `?ticket=` to GET events/stream; valid for one minute"),
    expires_at: z.string(),
  })
  .meta({ id: "EventStreamTicket" });
