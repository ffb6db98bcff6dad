import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { actorOf } from "../../api/access.ts";
import { deleteRoute } from "../../api/delete-route.ts";
import { pageQuery } from "../../api/pagination.ts";
import { workspaceParams } from "../../api/params.ts";
import type { Db } from "../../db/index.ts";
import { noContent } from "../../http/openapi.ts";
import { issueParams } from "../issues/schemas.ts";
import { createLabelBody, issueLabelParams, labelParams, labelSchema, updateLabelBody } from "./schemas.ts";
import {
  createLabel,
  deleteLabel,
  getLabel,
  linkLabel,
  listIssueLabels,
  listLabels,
  unlinkLabel,
  updateLabel,
} from "./service.ts";

const tags = ["labels"];

/** Registered under `/workspaces/:ws_id`, inside the membership guard. */
export async function labelRoutes(app: FastifyInstance, { db }: { db: Db }): Promise<void> {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.post(
    "/labels",
    {
      schema: {
        tags,
        summary: "Create a label (names are unique in a workspace)",
        params: workspaceParams,
        body: createLabelBody,
        response: { 201: labelSchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await createLabel(db, request.params.ws_id, request.body, actorOf(request))),
  );

  routes.get(
    "/labels",
    {
      schema: {
        tags,
        summary: "Labels of the workspace, by name",
        params: workspaceParams,
        querystring: pageQuery,
        response: { 200: z.array(labelSchema) },
      },
    },
    async (request) => listLabels(db, request.params.ws_id, request.query),
  );

  routes.get(
    "/labels/:label_id",
    { schema: { tags, summary: "A label", params: labelParams, response: { 200: labelSchema } } },
    async (request) => getLabel(db, request.params.ws_id, request.params.label_id),
  );

  routes.patch(
    "/labels/:label_id",
    {
      config: { role: "admin" },
      schema: {
        tags,
        summary: "Rename or recolour a label (admin)",
        params: labelParams,
        body: updateLabelBody,
        response: { 200: labelSchema },
      },
    },
    async (request) => updateLabel(db, request.params.ws_id, request.params.label_id, request.body, actorOf(request)),
  );

  deleteRoute(
    app,
    "/labels/:label_id",
    {
      tags,
      summary: "Delete a label and unlink it from every issue (admin)",
      params: labelParams,
      config: { role: "admin" },
    },
    async (request) => {
      await deleteLabel(db, request.params.ws_id, request.params.label_id, actorOf(request));
    },
  );

  routes.get(
    "/issues/:issue_id/labels",
    {
      schema: {
        tags,
        summary: "Labels on an issue, by name",
        params: issueParams,
        querystring: pageQuery,
        response: { 200: z.array(labelSchema) },
      },
    },
    async (request) => listIssueLabels(db, request.params.ws_id, request.params.issue_id, request.query),
  );

  routes.post(
    "/issues/:issue_id/labels/:label_id",
    {
      schema: {
        tags,
        summary: "Put a label on an issue (idempotent)",
        params: issueLabelParams,
        response: { 204: noContent },
      },
    },
    async (request, reply) => {
      const { ws_id, issue_id, label_id } = request.params;
      await linkLabel(db, ws_id, issue_id, label_id, actorOf(request));
      return reply.code(204).send();
    },
  );

  deleteRoute(
    app,
    "/issues/:issue_id/labels/:label_id",
    { tags, summary: "Take a label off an issue (idempotent)", params: issueLabelParams },
    async (request) => {
      const { ws_id, issue_id, label_id } = request.params;
      await unlinkLabel(db, ws_id, issue_id, label_id, actorOf(request));
    },
  );
}
