import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { actorOf } from "../../api/access.ts";
import { deleteRoute } from "../../api/delete-route.ts";
import { workspaceParams } from "../../api/params.ts";
import type { Db, SqlDialect } from "../../db/index.ts";
import { listIssuesJson } from "./list.ts";
import { SharedPageBuilds } from "./page-builds.ts";
import { IssuePageCache } from "./page-cache.ts";
import { createIssueBody, issueListQuery, issueParams, issueSchema, updateIssueBody } from "./schemas.ts";
import { createIssue, deleteIssue, getIssue, updateIssue } from "./service.ts";

const tags = ["issues"];

/** Registered under `/workspaces/:ws_id`, inside the membership guard. */
export async function issueRoutes(
  app: FastifyInstance,
  { db, dialect, pages = new IssuePageCache() }: { db: Db; dialect: SqlDialect; pages?: IssuePageCache },
): Promise<void> {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const builds = new SharedPageBuilds();

  routes.post(
    "/issues/",
    {
      schema: {
        tags,
        summary: "Create an issue; it gets the workspace's next number",
        params: workspaceParams,
        body: createIssueBody,
        response: { 201: issueSchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await createIssue(db, request.params.ws_id, request.body, actorOf(request))),
  );

  routes.get(
    "/issues/",
    {
      schema: {
        tags,
        summary: "Issues of the workspace, filtered (several values of one filter comma-separated) and searched (q)",
        params: workspaceParams,
        querystring: issueListQuery,
        response: { 200: z.array(issueSchema) },
      },
    },
    async (request, reply) => {
      const json = await listIssuesJson(db, dialect, request.params.ws_id, request.query, {
        cache: pages,
        builds,
        version: request.issueListVersion,
      });
      // Already JSON text in the documented shape: Fastify sends a string as it is, skipping the serializer.
      return reply.type("application/json").send(json as never);
    },
  );

  routes.get(
    "/issues/:issue_id",
    { schema: { tags, summary: "An issue", params: issueParams, response: { 200: issueSchema } } },
    async (request) => getIssue(db, request.params.ws_id, request.params.issue_id),
  );

  routes.patch(
    "/issues/:issue_id",
    {
      schema: {
        tags,
        summary: "Update an issue (any member)",
        params: issueParams,
        body: updateIssueBody,
        response: { 200: issueSchema },
      },
    },
    async (request) => updateIssue(db, request.params.ws_id, request.params.issue_id, request.body, actorOf(request)),
  );

  deleteRoute(
    app,
    "/issues/:issue_id",
    {
      tags,
      summary: "Delete an issue with its comments, label links and dependencies (admin or creator)",
      params: issueParams,
    },
    async (request) => {
      await deleteIssue(db, request.params.ws_id, request.params.issue_id, actorOf(request), request.membership.role);
    },
  );
}
