import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { actorOf, refuseApiKeyCallers } from "../../api/access.ts";
import { deleteRoute } from "../../api/delete-route.ts";
import { pageQuery } from "../../api/pagination.ts";
import { workspaceParams } from "../../api/params.ts";
import type { Db } from "../../db/index.ts";
import { addMemberBody, memberParams, memberSchema, updateMemberBody } from "./schemas.ts";
import { addMember, changeRole, listMembers, removeMember } from "./service.ts";

const tags = ["members"];

/** Registered under `/workspaces/:ws_id`, inside the membership guard. */
export async function memberRoutes(app: FastifyInstance, { db }: { db: Db }): Promise<void> {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.post(
    "/members",
    {
      config: { role: "admin" },
      onRequest: refuseApiKeyCallers,
      schema: {
        tags,
        summary: "Add a member by user_id or email (admin)",
        params: workspaceParams,
        body: addMemberBody,
        response: { 201: memberSchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await addMember(db, request.membership, request.body, actorOf(request))),
  );

  routes.get(
    "/members",
    {
      schema: {
        tags,
        summary: "Members of the workspace",
        params: workspaceParams,
        querystring: pageQuery,
        response: { 200: z.array(memberSchema) },
      },
    },
    async (request) => listMembers(db, request.params.ws_id, request.query),
  );

  routes.patch(
    "/members/:user_id",
    {
      config: { role: "admin" },
      onRequest: refuseApiKeyCallers,
      schema: {
        tags,
        summary: "Change a member's role (admin)",
        params: memberParams,
        body: updateMemberBody,
        response: { 200: memberSchema },
      },
    },
    async (request) => changeRole(db, request.membership, request.params.user_id, request.body.role, actorOf(request)),
  );

  deleteRoute(
    app,
    "/members/:user_id",
    {
      tags,
      summary: "Remove a member (admin), or leave (yourself)",
      params: memberParams,
      onRequest: refuseApiKeyCallers,
    },
    (request) => removeMember(db, request.membership, request.params.user_id, actorOf(request)),
  );
}
