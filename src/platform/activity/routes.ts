import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { pageQuery } from "../../api/pagination.ts";
import { workspaceParams } from "../../api/params.ts";
import type { Db } from "../../db/index.ts";
import { activitySchema, issueActivityParams } from "./schemas.ts";
import { listIssueActivity, listWorkspaceActivity } from "./service.ts";

const tags = ["activity"];

/** Registered under `/workspaces/:ws_id`, inside the membership guard. */
export async function activityRoutes(app: FastifyInstance, { db }: { db: Db }): Promise<void> {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.get(
    "/activity",
    {
      schema: {
        tags,
        summary: "Everything that happened in the workspace, newest first",
        params: workspaceParams,
        querystring: pageQuery,
        response: { 200: z.array(activitySchema) },
      },
    },
    async (request) => listWorkspaceActivity(db, request.params.ws_id, request.query),
  );

  routes.get(
    "/issues/:issue_id/activity",
    {
      schema: {
        tags,
        summary: "What happened to one issue, newest first",
        params: issueActivityParams,
        querystring: pageQuery,
        response: { 200: z.array(activitySchema) },
      },
    },
    async (request) => listIssueActivity(db, request.params.ws_id, request.params.issue_id, request.query),
  );
}
