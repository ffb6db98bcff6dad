import { z } from "zod";
import { idField, text, title } from "../api/fields.ts";
import { pageQuery } from "../api/pagination.ts";
import { ISSUE_PRIORITIES, ISSUE_STATUSES } from "../db/enums.ts";
import { typePattern } from "../events/types.ts";
import { cronProblem, isKnownTimeZone } from "./cron.ts";

export const MAX_TRIGGERS = 10;
export const OVERLAP_POLICIES = ["skip", "allow"] as const;
export const RUN_STATUSES = ["issue_created", "skipped", "failed"] as const;
export const TRIGGER_KINDS = ["schedule", "webhook", "event", "manual"] as const;

const scheduleTrigger = z.object({
  kind: z.literal("schedule"),
  cron: text(200).superRefine((cron, context) => {
    const problem = cronProblem(cron);
    if (problem) context.addIssue({ code: "custom", message: problem });
  }),
  timezone: text(100)
    .default("UTC")
    .refine(isKnownTimeZone, { message: "Unknown time zone: must be an IANA name such as Europe/Berlin" }),
});

const webhookTrigger = z.object({ kind: z.literal("webhook") });

export const eventFilterSchema = z
  .object({
    status: z.enum(ISSUE_STATUSES).optional(),
    priority: z.enum(ISSUE_PRIORITIES).optional(),
    project_id: idField.optional(),
    label_id: idField.optional(),
    from_status: z.enum(ISSUE_STATUSES).optional(),
    to_status: z.enum(ISSUE_STATUSES).optional(),
  })
  .strict()
  .describe("Every field given must match the event's issue; `from_status`/`to_status`: a status change");

const eventTrigger = z.object({
  kind: z.literal("event"),
  types: z.array(typePattern).min(1).max(50).describe("Event types, e.g. `issue.updated`, or `issue.*`"),
  filter: eventFilterSchema.default({}),
});

export const triggerInput = z.discriminatedUnion("kind", [scheduleTrigger, webhookTrigger, eventTrigger]);
export type TriggerInput = z.output<typeof triggerInput>;

const triggers = z
  .array(triggerInput)
  .min(1, { message: "An autopilot needs at least one trigger" })
  .max(MAX_TRIGGERS, { message: `An autopilot has at most ${MAX_TRIGGERS} triggers` });

const issueTemplate = z.object({
  title: title(500).describe("May use {{date}}, {{datetime}}, {{autopilot}}, {{trigger}}, {{payload.x}}, {{event.x}}"),
  description: text(100_000).nullable().default(null),
  priority: z.enum(ISSUE_PRIORITIES).default("none"),
  labels: z.array(idField).max(20).default([]).describe("Label ids put on each issue"),
});

export const createAutopilotBody = z.object({
  name: title(200),
  description: text(10_000).nullable().default(null),
  enabled: z.boolean().default(true),
  agent_id: idField,
  project_id: idField.nullable().default(null),
  issue: issueTemplate,
  triggers,
  overlap: z.enum(OVERLAP_POLICIES).default("skip"),
});

/** JSON merge patch; `triggers` replaces the list (a webhook trigger keeps its token where it stays a webhook). */
export const updateAutopilotBody = z.object({
  name: title(200).optional(),
  description: text(10_000).nullable().optional(),
  enabled: z.boolean().optional(),
  agent_id: idField.optional(),
  project_id: idField.nullable().optional(),
  issue: issueTemplate.optional(),
  triggers: triggers.optional(),
  overlap: z.enum(OVERLAP_POLICIES).optional(),
});

export type CreateAutopilotInput = z.output<typeof createAutopilotBody>;
export type UpdateAutopilotInput = z.output<typeof updateAutopilotBody>;

const triggerSchema = z
  .object({
    kind: z.enum(["schedule", "webhook", "event"]),
    cron: z.string().optional(),
    timezone: z.string().optional(),
    types: z.array(z.string()).optional(),
    filter: eventFilterSchema.optional(),
    url: z
      .string()
      .optional()
      .describe("Webhook: `…/api/v1/autopilot-hooks/{token}`, only in the answer that made or rotated the token"),
    token: z.string().optional().describe("Webhook: shown once, like `url`"),
  })
  .meta({ id: "AutopilotTrigger" });

export const autopilotSchema = z
  .object({
    id: z.string(),
    workspace_id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    enabled: z.boolean(),
    agent_id: z.string(),
    project_id: z.string().nullable(),
    issue: z.object({
      title: z.string(),
      description: z.string().nullable(),
      priority: z.enum(ISSUE_PRIORITIES),
      labels: z.array(z.string()),
    }),
    triggers: z.array(triggerSchema),
    overlap: z.enum(OVERLAP_POLICIES),
    paused_reason: z.string().nullable(),
    created_by: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
    last_fired_at: z.string().nullable(),
    next_fire_at: z.string().nullable().describe("While enabled with a schedule; else null"),
  })
  .meta({ id: "Autopilot" });

export const runSchema = z
  .object({
    id: z.string(),
    autopilot_id: z.string(),
    trigger_kind: z.enum(TRIGGER_KINDS),
    status: z.enum(RUN_STATUSES),
    reason: z.string().nullable(),
    issue_id: z.string().nullable(),
    created_at: z.string(),
  })
  .meta({ id: "AutopilotRun" });

export const fireAnswerSchema = z
  .object({
    status: z.enum(["accepted", "skipped", "duplicate"]),
    run_id: z.string(),
  })
  .meta({ id: "AutopilotFireAnswer" });

export const autopilotParams = z.object({ ws_id: z.string(), autopilot_id: z.string() });
export const triggerParams = autopilotParams.extend({ trigger_index: z.coerce.number().int().min(0).max(1000) });
export const hookParams = z.object({ token: z.string() });
export const runsQuery = pageQuery;
