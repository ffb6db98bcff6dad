import { z } from "zod";
import { text } from "../../api/fields.ts";
import { pageQuery } from "../../api/pagination.ts";
import { DELIVERY_STATUSES } from "../../db/enums.ts";
import { TYPES_DESCRIPTION, typePattern } from "../types.ts";

export const webhookSchema = z
  .object({
    id: z.string(),
    workspace_id: z.string(),
    url: z.string(),
    types: z.array(z.string()).describe("Event types it receives; empty = all"),
    enabled: z.boolean(),
    failing_since: z.string().nullable().describe("First failed attempt since the last success; null while healthy"),
    disabled_reason: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Webhook" });

export const webhookWithSecretSchema = webhookSchema
  .extend({
    secret: z.string().describe("`whsec_…` signing secret. Shown only in this response: store it now."),
  })
  .meta({ id: "WebhookWithSecret" });

const url = text(2000).pipe(z.url({ protocol: /^https?$/, message: "Must be an http(s) URL" }));
const types = z.array(typePattern).max(100).describe(TYPES_DESCRIPTION);

export const createWebhookBody = z.object({
  url,
  types: types.default([]),
  enabled: z.boolean().default(true),
});

export const updateWebhookBody = z.object({
  url: url.optional(),
  types: types.optional(),
  enabled: z.boolean().optional(),
});

export type CreateWebhookInput = z.infer<typeof createWebhookBody>;
export type UpdateWebhookInput = z.infer<typeof updateWebhookBody>;

export const webhookParams = z.object({ ws_id: z.string(), webhook_id: z.string() });
export const deliveryParams = webhookParams.extend({ delivery_id: z.string() });

export const deliverySchema = z
  .object({
    id: z.string(),
    webhook_id: z.string(),
    event_id: z.string(),
    event_type: z.string(),
    event_seq: z.number().int(),
    attempt: z.number().int().describe("1 for the first try, 2 for the first retry…"),
    status: z.enum(DELIVERY_STATUSES).describe("`pending` = queued for next_attempt_at"),
    response_status: z.number().int().nullable(),
    error: z.string().nullable(),
    duration_ms: z.number().int().nullable(),
    next_attempt_at: z.string(),
    created_at: z.string(),
    finished_at: z.string().nullable(),
  })
  .meta({ id: "WebhookDelivery" });

export const listDeliveriesQuery = pageQuery.extend({
  status: z.enum(DELIVERY_STATUSES).optional(),
});
