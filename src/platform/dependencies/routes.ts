import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { actorOf } from "../../api/access.ts";
import { deleteRoute } from "../../api/delete-route.ts";
import { pageQuery } from "../../api/pagination.ts";
import type { Db } from "../../db/index.ts";
import { issueParams } from "../issues/schemas.ts";
import { createDependencyBody, dependencyParams, dependencySchema } from "./schemas.ts";
import { createDependency, deleteDependency, listDependencies } from "./service.ts";

const tags = ["dependencies"];

/** Registered under `/workspaces/:ws_id`, inside the membership guard. */
export async function dependencyRoutes(app: FastifyInstance, { db }: { db: Db }): Promise<void> {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.post(
    "/issues/:issue_id/dependencies/",
    {
      schema: {
        tags,
        summary: "Record that an issue blocks, is blocked by, or relates to another issue (type defaults to blocks)",
        params: issueParams,
        body: createDependencyBody,
        response: { 201: dependencySchema },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(
          await createDependency(db, request.params.ws_id, request.params.issue_id, request.body, actorOf(request)),
        ),
  );

  routes.get(
    "/issues/:issue_id/dependencies/",
    {
      schema: {
        tags,
        summary: "Dependencies of an issue and on it, oldest first",
        params: issueParams,
        querystring: pageQuery,
        response: { 200: z.array(dependencySchema) },
      },
    },
    async (request) => listDependencies(db, request.params.ws_id, request.params.issue_id, request.query),
  );

  deleteRoute(
    app,
    "/issues/:issue_id/dependencies/:dependency_id",
    { tags, summary: "Remove a dependency (admin, or the creator of both issues)", params: dependencyParams },
    async (request) => {
      const { ws_id, issue_id, dependency_id } = request.params;
      await deleteDependency(db, ws_id, issue_id, dependency_id, actorOf(request), request.membership.role);
    },
  );
}
