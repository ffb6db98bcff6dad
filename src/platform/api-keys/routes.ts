import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { actorOf, refuseApiKeyCallers } from "../../api/access.ts";
import { deleteRoute } from "../../api/delete-route.ts";
import { pageQuery } from "../../api/pagination.ts";
import { workspaceParams } from "../../api/params.ts";
import type { Db } from "../../db/index.ts";
import { apiKeyParams, apiKeySchema, createApiKeyBody, createdApiKeySchema } from "./schemas.ts";
import { createApiKey, listApiKeys, revokeApiKey } from "./service.ts";

const tags = ["api-keys"];

/** Registered under `/workspaces/:ws_id`, inside the membership guard. */
export async function apiKeyRoutes(app: FastifyInstance, { db }: { db: Db }): Promise<void> {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.post(
    "/api-keys",
    {
      config: { role: "admin" },
      onRequest: refuseApiKeyCallers,
      schema: {
        tags,
        summary: "Create an API key (admin); the response holds the secret, shown only this once",
        params: workspaceParams,
        body: createApiKeyBody,
        response: { 201: createdApiKeySchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await createApiKey(db, request.params.ws_id, request.body.name, actorOf(request))),
  );

  routes.get(
    "/api-keys",
    {
      schema: {
        tags,
        summary: "API keys of the workspace (prefix only, never the secret)",
        params: workspaceParams,
        querystring: pageQuery,
        response: { 200: z.array(apiKeySchema) },
      },
    },
    async (request) => listApiKeys(db, request.params.ws_id, request.query),
  );

  deleteRoute(
    app,
    "/api-keys/:key_id",
    {
      tags,
      summary: "Revoke an API key (admin, or its creator)",
      params: apiKeyParams,
      onRequest: refuseApiKeyCallers,
    },
    (request) => revokeApiKey(db, request.membership, request.params.key_id, actorOf(request)),
  );
}
