// Webhooks (admin): CRUD, secret rotation, the delivery log and manual retry.
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { actorOf, refuseApiKeyCallers } from "../../api/access.ts";
import { deleteRoute } from "../../api/delete-route.ts";
import { pageQuery } from "../../api/pagination.ts";
import { workspaceParams } from "../../api/params.ts";
import type { Db } from "../../db/index.ts";
import type { TargetPolicy } from "../../http/targets.ts";
import {
  createWebhookBody,
  deliveryParams,
  deliverySchema,
  listDeliveriesQuery,
  updateWebhookBody,
  webhookParams,
  webhookSchema,
  webhookWithSecretSchema,
} from "./schemas.ts";
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listDeliveries,
  listWebhooks,
  retryDelivery,
  rotateWebhookSecret,
  updateWebhook,
} from "./service.ts";

const tags = ["webhooks"];
const admin = { role: "admin" as const };

interface WebhookRouteOptions {
  db: Db;
  policy: TargetPolicy;
  /** Asks the delivery worker to look for due attempts now. */
  deliverNow: () => void;
}

/**
 * Registered under `/workspaces/:ws_id`, inside the membership guard. Pointing events somewhere new needs a signed-in
 * admin, not an API key: a leaked key must not be able to set up a copy of everything that outlives the key.
 */
export async function webhookRoutes(app: FastifyInstance, options: WebhookRouteOptions): Promise<void> {
  const { db, policy } = options;
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.post(
    "/webhooks",
    {
      config: admin,
      onRequest: refuseApiKeyCallers,
      schema: {
        tags,
        summary: "Send the workspace's events to a URL (admin); the response holds the signing secret, shown once",
        params: workspaceParams,
        body: createWebhookBody,
        response: { 201: webhookWithSecretSchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await createWebhook(db, request.params.ws_id, request.body, actorOf(request), policy)),
  );

  routes.get(
    "/webhooks",
    {
      config: admin,
      schema: {
        tags,
        summary: "Webhooks of the workspace, oldest first (never their secrets)",
        params: workspaceParams,
        querystring: pageQuery,
        response: { 200: z.array(webhookSchema) },
      },
    },
    async (request) => listWebhooks(db, request.params.ws_id, request.query),
  );

  routes.get(
    "/webhooks/:webhook_id",
    {
      config: admin,
      schema: { tags, summary: "One webhook", params: webhookParams, response: { 200: webhookSchema } },
    },
    async (request) => getWebhook(db, request.params.ws_id, request.params.webhook_id),
  );

  routes.patch(
    "/webhooks/:webhook_id",
    {
      config: admin,
      onRequest: refuseApiKeyCallers,
      schema: {
        tags,
        summary: "Change url, types or enabled (JSON merge patch); enabling again starts from the present",
        params: webhookParams,
        body: updateWebhookBody,
        response: { 200: webhookSchema },
      },
    },
    async (request) =>
      updateWebhook(db, request.params.ws_id, request.params.webhook_id, request.body, actorOf(request), policy),
  );

  deleteRoute(
    app,
    "/webhooks/:webhook_id",
    { tags, summary: "Delete a webhook and its queued attempts", params: webhookParams, config: admin },
    async (request) => {
      await deleteWebhook(db, request.params.ws_id, request.params.webhook_id, actorOf(request));
    },
  );

  routes.post(
    "/webhooks/:webhook_id/rotate-secret",
    {
      config: admin,
      onRequest: refuseApiKeyCallers,
      schema: {
        tags,
        summary: "A new signing secret, shown once; every attempt from now on is signed with it",
        params: webhookParams,
        response: { 200: webhookWithSecretSchema },
      },
    },
    async (request) => rotateWebhookSecret(db, request.params.ws_id, request.params.webhook_id, actorOf(request)),
  );

  routes.get(
    "/webhooks/:webhook_id/deliveries",
    {
      config: admin,
      schema: {
        tags,
        summary: "Delivery attempts, newest first: one row per attempt, `pending` for the one queued next",
        params: webhookParams,
        querystring: listDeliveriesQuery,
        response: { 200: z.array(deliverySchema) },
      },
    },
    async (request) => listDeliveries(db, request.params.ws_id, request.params.webhook_id, request.query),
  );

  routes.post(
    "/webhooks/:webhook_id/deliveries/:delivery_id/retry",
    {
      config: admin,
      schema: {
        tags,
        summary: "Send this attempt's event again now (same webhook-id); 409 while the hook is disabled",
        params: deliveryParams,
        response: { 202: deliverySchema },
      },
    },
    async (request, reply) => {
      const queued = await retryDelivery(
        db,
        request.params.ws_id,
        request.params.webhook_id,
        request.params.delivery_id,
      );
      options.deliverNow();
      return reply.code(202).send(queued);
    },
  );
}
