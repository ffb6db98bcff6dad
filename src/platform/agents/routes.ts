import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { actorOf } from "../../api/access.ts";
import { deleteRoute } from "../../api/delete-route.ts";
import { workspaceParams } from "../../api/params.ts";
import type { Db } from "../../db/index.ts";
import type { AgentChecks } from "./checks.ts";
import { agentListQuery, agentParams, agentSchema, createAgentBody, updateAgentBody } from "./schemas.ts";
import { createAgent, deleteAgent, getAgent, listAgents, showAgent, showAgents, updateAgent } from "./service.ts";

const tags = ["agents"];

/** Registered under `/workspaces/:ws_id`, inside the membership guard. */
export async function agentRoutes(
  app: FastifyInstance,
  options: { db: Db } & Omit<AgentChecks, "role">,
): Promise<void> {
  const { db, ...serverChecks } = options;
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.post(
    "/agents/",
    {
      schema: {
        tags,
        summary: "Create an agent (you become its owner unless owner_type/owner_id say otherwise)",
        params: workspaceParams,
        body: createAgentBody,
        response: { 201: agentSchema },
      },
    },
    async (request, reply) => {
      const checks = { ...serverChecks, role: request.membership.role };
      const agent = await createAgent(db, request.params.ws_id, request.body, actorOf(request), checks);
      return reply.code(201).send(await showAgent(db, agent));
    },
  );

  routes.get(
    "/agents/",
    {
      schema: {
        tags,
        summary: "Agents of the workspace, oldest first",
        params: workspaceParams,
        querystring: agentListQuery,
        response: { 200: z.array(agentSchema) },
      },
    },
    async (request) => {
      const { status, ...page } = request.query;
      return showAgents(db, await listAgents(db, request.params.ws_id, page, { status }));
    },
  );

  routes.get(
    "/agents/:agent_id",
    { schema: { tags, summary: "An agent", params: agentParams, response: { 200: agentSchema } } },
    async (request) => showAgent(db, await getAgent(db, request.params.ws_id, request.params.agent_id)),
  );

  routes.patch(
    "/agents/:agent_id",
    {
      schema: {
        tags,
        summary: "Update an agent (admin or the agent's owner; JSON merge patch)",
        params: agentParams,
        body: updateAgentBody,
        response: { 200: agentSchema },
      },
    },
    async (request) =>
      showAgent(
        db,
        await updateAgent(
          db,
          request.membership,
          request.params.agent_id,
          request.body,
          actorOf(request),
          serverChecks,
        ),
      ),
  );

  deleteRoute(
    app,
    "/agents/:agent_id",
    { tags, summary: "Delete an agent (admin or the agent's owner)", params: agentParams },
    (request) => deleteAgent(db, request.membership, request.params.agent_id, actorOf(request)),
  );
}
