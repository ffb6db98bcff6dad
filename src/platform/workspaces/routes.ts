import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { actorOf, refuseApiKeyCallers } from "../../api/access.ts";
import { deleteRoute } from "../../api/delete-route.ts";
import { pageQuery } from "../../api/pagination.ts";
import { workspaceParams } from "../../api/params.ts";
import { boundWorkspace } from "../../auth/principal.ts";
import type { Db } from "../../db/index.ts";
import { createWorkspaceBody, updateWorkspaceBody, workspaceSchema } from "./schemas.ts";
import { createWorkspace, deleteWorkspace, getWorkspace, listWorkspaces, updateWorkspace } from "./service.ts";

const tags = ["workspaces"];

/** `/workspaces/` itself; everything under `/workspaces/:ws_id` is registered by `workspaceRoutes` and the other feature plugins (see ../index.ts). */
export async function workspaceCollectionRoutes(app: FastifyInstance, { db }: { db: Db }): Promise<void> {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.post(
    "/workspaces/",
    {
      onRequest: refuseApiKeyCallers,
      schema: {
        tags,
        summary: "Create a workspace (you become its owner)",
        body: createWorkspaceBody,
        response: { 201: workspaceSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await createWorkspace(db, request.body, actorOf(request))),
  );

  routes.get(
    "/workspaces/",
    {
      schema: {
        tags,
        summary: "Workspaces you are a member of",
        querystring: pageQuery,
        response: { 200: z.array(workspaceSchema) },
      },
    },
    async (request) => listWorkspaces(db, request.principal.user.id, request.query, boundWorkspace(request.principal)),
  );
}

/** Registered under `/workspaces/:ws_id`, inside the membership guard. */
export async function workspaceRoutes(app: FastifyInstance, { db }: { db: Db }): Promise<void> {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.get(
    "/",
    { schema: { tags, summary: "A workspace", params: workspaceParams, response: { 200: workspaceSchema } } },
    async (request) => getWorkspace(db, request.params.ws_id),
  );

  routes.patch(
    "/",
    {
      config: { role: "admin" },
      schema: {
        tags,
        summary: "Update a workspace (admin)",
        params: workspaceParams,
        body: updateWorkspaceBody,
        response: { 200: workspaceSchema },
      },
    },
    async (request) => updateWorkspace(db, request.params.ws_id, request.body, actorOf(request)),
  );

  deleteRoute(
    app,
    "/",
    {
      tags,
      summary: "Delete a workspace and everything in it (owner)",
      params: workspaceParams,
      config: { role: "owner" },
      onRequest: refuseApiKeyCallers,
    },
    async (request) => {
      await deleteWorkspace(db, request.params.ws_id);
    },
  );
}
