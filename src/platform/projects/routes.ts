import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { actorOf } from "../../api/access.ts";
import { deleteRoute } from "../../api/delete-route.ts";
import { pageQuery } from "../../api/pagination.ts";
import { workspaceParams } from "../../api/params.ts";
import type { Db } from "../../db/index.ts";
import { createProjectBody, projectParams, projectSchema, projectStatsSchema, updateProjectBody } from "./schemas.ts";
import { createProject, deleteProject, getProject, listProjects, projectStats, updateProject } from "./service.ts";

const tags = ["projects"];

/** Registered under `/workspaces/:ws_id`, inside the membership guard. */
export async function projectRoutes(app: FastifyInstance, { db }: { db: Db }): Promise<void> {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.post(
    "/projects/",
    {
      schema: {
        tags,
        summary: "Create a project",
        params: workspaceParams,
        body: createProjectBody,
        response: { 201: projectSchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await createProject(db, request.params.ws_id, request.body, actorOf(request))),
  );

  routes.get(
    "/projects/",
    {
      schema: {
        tags,
        summary: "Projects of the workspace, oldest first",
        params: workspaceParams,
        querystring: pageQuery,
        response: { 200: z.array(projectSchema) },
      },
    },
    async (request) => listProjects(db, request.params.ws_id, request.query),
  );

  routes.get(
    "/projects/:project_id",
    { schema: { tags, summary: "A project", params: projectParams, response: { 200: projectSchema } } },
    async (request) => getProject(db, request.params.ws_id, request.params.project_id),
  );

  routes.get(
    "/projects/:project_id/stats",
    {
      schema: {
        tags,
        summary: "Issue counts of a project, in total and by status",
        params: projectParams,
        response: { 200: projectStatsSchema },
      },
    },
    async (request) => projectStats(db, request.params.ws_id, request.params.project_id),
  );

  routes.patch(
    "/projects/:project_id",
    {
      schema: {
        tags,
        summary: "Update a project (admin, lead or creator)",
        params: projectParams,
        body: updateProjectBody,
        response: { 200: projectSchema },
      },
    },
    async (request) =>
      updateProject(
        db,
        request.params.ws_id,
        request.params.project_id,
        request.body,
        actorOf(request),
        request.membership.role,
      ),
  );

  deleteRoute(
    app,
    "/projects/:project_id",
    {
      tags,
      summary: "Delete a project; its issues stay, without a project (admin, lead or creator)",
      params: projectParams,
    },
    async (request) => {
      await deleteProject(
        db,
        request.params.ws_id,
        request.params.project_id,
        actorOf(request),
        request.membership.role,
      );
    },
  );
}
