// Webhooks of a workspace: where its events go. The signing secret leaves the server only in the responses to create
// and rotate-secret; every other read leaves it out.

import { randomBytes } from "node:crypto";
import type { Selectable, Updateable } from "kysely";
import type { Actor } from "../../api/access.ts";
import type { Page } from "../../api/pagination.ts";
import { getInWorkspace, listInWorkspace } from "../../api/workspace-rows.ts";
import { inWorkspace } from "../../api/workspace-transaction.ts";
import type { DeliveryStatus } from "../../db/enums.ts";
import type { Db } from "../../db/index.ts";
import type { WebhookDeliveriesTable, WebhooksTable } from "../../db/schema.ts";
import { fromJson, isId, newId, now, toJson } from "../../db/values.ts";
import { conflict, invalid, notFound } from "../../http/errors.ts";
import { checkTarget, type TargetPolicy } from "../../http/targets.ts";
import { deleteRecorded, diffFields, insertCreated, updateRecorded } from "../activity.ts";
import { headSeq } from "../outbox.ts";
import type { CreateWebhookInput, UpdateWebhookInput } from "./schemas.ts";

interface Webhook {
  id: string;
  workspace_id: string;
  url: string;
  types: string[];
  enabled: boolean;
  failing_since: string | null;
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
}

const toWebhook = (row: Selectable<WebhooksTable>): Webhook => ({
  id: row.id,
  workspace_id: row.workspace_id,
  url: row.url,
  types: fromJson<string[]>(row.types, []),
  enabled: Number(row.enabled) === 1,
  failing_since: row.failing_since,
  disabled_reason: row.disabled_reason,
  created_at: row.created_at,
  updated_at: row.updated_at,
});

/** 32 random bytes, base64, behind the `whsec_` prefix that Standard Webhooks libraries expect. */
const newSecret = () => `whsec_${randomBytes(32).toString("base64")}`;

async function requireAllowedUrl(url: string, policy: TargetPolicy): Promise<void> {
  const check = await checkTarget(url, policy);
  if (!check.ok) throw invalid(["body", "url"], check.problem);
}

const getRow = (db: Db, workspaceId: string, webhookId: string): Promise<Selectable<WebhooksTable>> =>
  getInWorkspace(db, "webhooks", workspaceId, webhookId, "Webhook");

export const getWebhook = async (db: Db, workspaceId: string, webhookId: string): Promise<Webhook> =>
  toWebhook(await getRow(db, workspaceId, webhookId));

/** Oldest first. */
export async function listWebhooks(db: Db, workspaceId: string, page: Page): Promise<Webhook[]> {
  return (await listInWorkspace(db, "webhooks", workspaceId, page)).map(toWebhook);
}

/** The new hook hears every event after the ones already in the outbox, beginning with its own `webhook.created`. */
export async function createWebhook(
  db: Db,
  workspaceId: string,
  input: CreateWebhookInput,
  actor: Actor,
  policy: TargetPolicy,
): Promise<Webhook & { secret: string }> {
  await requireAllowedUrl(input.url, policy);
  const secret = newSecret();
  return inWorkspace(db, workspaceId, async (trx) => {
    const at = now();
    const row: Selectable<WebhooksTable> = {
      id: newId(),
      workspace_id: workspaceId,
      url: input.url,
      types: toJson(input.types),
      enabled: input.enabled ? 1 : 0,
      secret,
      last_seq: await headSeq(trx, workspaceId),
      failing_since: null,
      disabled_reason: null,
      created_at: at,
      updated_at: at,
    };
    await insertCreated(trx, "webhooks", row, {
      workspaceId,
      entityType: "webhook",
      actor,
      details: { url: row.url, types: input.types, enabled: input.enabled },
    });
    return { ...toWebhook(row), secret };
  });
}

/**
 * JSON merge patch of url, types, enabled. Enabling a hook again starts it at the present: events from while it was
 * off are not sent, attempts queued before are.
 */
export async function updateWebhook(
  db: Db,
  workspaceId: string,
  webhookId: string,
  patch: UpdateWebhookInput,
  actor: Actor,
  policy: TargetPolicy,
): Promise<Webhook> {
  if (patch.url !== undefined) await requireAllowedUrl(patch.url, policy);
  return inWorkspace(db, workspaceId, async (trx) => {
    const before = toWebhook(await getRow(trx, workspaceId, webhookId));
    const changes = diffFields(before, patch);
    if (Object.keys(changes).length === 0) return before;
    const enabling = patch.enabled === true && !before.enabled;
    const updated_at = now();
    const columns: Updateable<WebhooksTable> = {
      ...(patch.url !== undefined && { url: patch.url }),
      ...(patch.types !== undefined && { types: toJson(patch.types) }),
      ...(patch.enabled !== undefined && { enabled: patch.enabled ? 1 : 0 }),
      ...(enabling && { last_seq: await headSeq(trx, workspaceId), failing_since: null, disabled_reason: null }),
      updated_at,
    };
    await updateRecorded(trx, "webhooks", before.id, columns, {
      workspaceId,
      entityType: "webhook",
      actor,
      details: { changes },
    });
    return toWebhook(await getRow(trx, workspaceId, webhookId));
  });
}

/** Its queued attempts go with it. */
export async function deleteWebhook(db: Db, workspaceId: string, webhookId: string, actor: Actor): Promise<void> {
  await inWorkspace(db, workspaceId, async (trx) => {
    const row = await getRow(trx, workspaceId, webhookId);
    await deleteRecorded(trx, "webhooks", row.id, {
      workspaceId,
      entityType: "webhook",
      actor,
      details: { url: row.url },
    });
  });
}

/** A new secret, effective for every attempt from now on (retries of earlier events included). */
export async function rotateWebhookSecret(
  db: Db,
  workspaceId: string,
  webhookId: string,
  actor: Actor,
): Promise<Webhook & { secret: string }> {
  const secret = newSecret();
  return inWorkspace(db, workspaceId, async (trx) => {
    const row = await getRow(trx, workspaceId, webhookId);
    const updated_at = now();
    await updateRecorded(
      trx,
      "webhooks",
      row.id,
      { secret, updated_at },
      { workspaceId, entityType: "webhook", actor, action: "webhook.secret_rotated", details: { url: row.url } },
    );
    return { ...toWebhook({ ...row, updated_at }), secret };
  });
}

interface Delivery {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  event_seq: number;
  attempt: number;
  status: WebhookDeliveriesTable["status"];
  response_status: number | null;
  error: string | null;
  duration_ms: number | null;
  next_attempt_at: string;
  created_at: string;
  finished_at: string | null;
}

const deliveryQuery = (db: Db, webhookId: string) =>
  db
    .selectFrom("webhook_deliveries as d")
    .innerJoin("events as e", "e.id", "d.event_id")
    .select([
      "d.id",
      "d.webhook_id",
      "d.event_id",
      "e.type as event_type",
      "e.seq as event_seq",
      "d.attempt",
      "d.status",
      "d.response_status",
      "d.error",
      "d.duration_ms",
      "d.next_attempt_at",
      "d.created_at",
      "d.finished_at",
    ])
    .where("d.webhook_id", "=", webhookId);

type DeliveryRow = Awaited<ReturnType<ReturnType<typeof deliveryQuery>["executeTakeFirstOrThrow"]>>;

const toDelivery = (row: DeliveryRow): Delivery => ({
  ...row,
  event_seq: Number(row.event_seq),
  attempt: Number(row.attempt),
  response_status: row.response_status === null ? null : Number(row.response_status),
  duration_ms: row.duration_ms === null ? null : Number(row.duration_ms),
});

/** Every attempt, newest first. */
export async function listDeliveries(
  db: Db,
  workspaceId: string,
  webhookId: string,
  query: Page & { status?: DeliveryStatus | undefined },
): Promise<Delivery[]> {
  const hook = await getRow(db, workspaceId, webhookId);
  let select = deliveryQuery(db, hook.id);
  if (query.status) select = select.where("d.status", "=", query.status);
  const rows = await select
    .orderBy("d.created_at", "desc")
    .orderBy("d.id", "desc")
    .limit(query.limit)
    .offset(query.offset)
    .execute();
  return rows.map(toDelivery);
}

/**
 * Sends the attempt's event again now: its queued attempt is made due at once, or a new attempt is queued when
 * none is. The hook must be enabled.
 */
export async function retryDelivery(
  db: Db,
  workspaceId: string,
  webhookId: string,
  deliveryId: string,
): Promise<Delivery> {
  return inWorkspace(db, workspaceId, async (trx) => {
    const hook = await getRow(trx, workspaceId, webhookId);
    const attempt = isId(deliveryId)
      ? await trx
          .selectFrom("webhook_deliveries")
          .select(["event_id"])
          .where("webhook_id", "=", hook.id)
          .where("id", "=", deliveryId)
          .executeTakeFirst()
      : undefined;
    if (!attempt) throw notFound("Delivery");
    if (Number(hook.enabled) !== 1) throw conflict("Webhook is disabled; enable it first");
    const at = now();
    const attempts = await trx
      .selectFrom("webhook_deliveries")
      .select(["id", "attempt", "status"])
      .where("webhook_id", "=", hook.id)
      .where("event_id", "=", attempt.event_id)
      .orderBy("attempt", "desc")
      .execute();
    const queued = attempts.find((row) => row.status === "pending");
    let id: string;
    if (queued) {
      id = queued.id;
      await trx.updateTable("webhook_deliveries").set({ next_attempt_at: at }).where("id", "=", id).execute();
    } else {
      id = newId();
      await trx
        .insertInto("webhook_deliveries")
        .values(newAttempt(hook, attempt.event_id, Number(attempts[0]?.attempt ?? 0) + 1, at, id))
        .execute();
    }
    return toDelivery(await deliveryQuery(trx, hook.id).where("d.id", "=", id).executeTakeFirstOrThrow());
  });
}

export function newAttempt(
  hook: Pick<Selectable<WebhooksTable>, "id" | "workspace_id">,
  eventId: string,
  attempt: number,
  dueAt: string,
  id = newId(),
): WebhookDeliveriesTable {
  return {
    id,
    webhook_id: hook.id,
    workspace_id: hook.workspace_id,
    event_id: eventId,
    attempt,
    status: "pending",
    next_attempt_at: dueAt,
    lease_token: null,
    lease_expires_at: null,
    response_status: null,
    error: null,
    duration_ms: null,
    created_at: now(),
    finished_at: null,
  };
}
