// Autopilots under /workspaces/:ws_id: CRUD, webhook token rotation, "fire now" and the runs.
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { actorOf } from "../api/access.ts";
import { deleteRoute } from "../api/delete-route.ts";
import { pageQuery } from "../api/pagination.ts";
import { workspaceParams } from "../api/params.ts";
import type { Db } from "../db/index.ts";
import type { FireSettings } from "./fire.ts";
import { fireNow, listRuns } from "./runs.ts";
import {
  autopilotParams,
  autopilotSchema,
  createAutopilotBody,
  runSchema,
  runsQuery,
  triggerParams,
  updateAutopilotBody,
} from "./schemas.ts";
import {
  createAutopilot,
  deleteAutopilot,
  getAutopilot,
  listAutopilots,
  rotateHookToken,
  updateAutopilot,
} from "./service.ts";

export const AUTOPILOT_TAGS = ["autopilots"];
const tags = AUTOPILOT_TAGS;

export interface AutopilotRouteOptions {
  db: Db;
  settings: FireSettings;
}

/** The origin the caller reached us at: webhook trigger URLs are built on it. */
const originOf = (request: FastifyRequest) => `${request.protocol}://${request.host}`;

/** Registered under `/workspaces/:ws_id`, inside the membership guard. */
export async function autopilotRoutes(app: FastifyInstance, options: AutopilotRouteOptions): Promise<void> {
  const { db, settings } = options;
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.post(
    "/autopilots",
    {
      schema: {
        tags,
        summary: "Create an autopilot; a webhook trigger's `url` and `token` are in this answer only",
        params: workspaceParams,
        body: createAutopilotBody,
        response: { 201: autopilotSchema },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(await createAutopilot(db, request.params.ws_id, request.body, actorOf(request), originOf(request))),
  );

  routes.get(
    "/autopilots",
    {
      schema: {
        tags,
        summary: "Autopilots of the workspace, oldest first",
        params: workspaceParams,
        querystring: pageQuery,
        response: { 200: z.array(autopilotSchema) },
      },
    },
    async (request) => listAutopilots(db, request.params.ws_id, request.query),
  );

  routes.get(
    "/autopilots/:autopilot_id",
    { schema: { tags, summary: "One autopilot", params: autopilotParams, response: { 200: autopilotSchema } } },
    async (request) => getAutopilot(db, request.params.ws_id, request.params.autopilot_id),
  );

  routes.patch(
    "/autopilots/:autopilot_id",
    {
      schema: {
        tags,
        summary: "Change an autopilot (its creator or an admin); enabling again clears `paused_reason`",
        params: autopilotParams,
        body: updateAutopilotBody,
        response: { 200: autopilotSchema },
      },
    },
    async (request) =>
      updateAutopilot(
        db,
        request.params.ws_id,
        request.params.autopilot_id,
        request.body,
        actorOf(request),
        request.membership.role,
        originOf(request),
      ),
  );

  deleteRoute(
    app,
    "/autopilots/:autopilot_id",
    {
      tags,
      summary: "Delete an autopilot (its creator or an admin) with its runs; its issues stay",
      params: autopilotParams,
    },
    async (request) => {
      await deleteAutopilot(
        db,
        request.params.ws_id,
        request.params.autopilot_id,
        actorOf(request),
        request.membership.role,
      );
    },
  );

  routes.post(
    "/autopilots/:autopilot_id/triggers/:trigger_index/rotate",
    {
      schema: {
        tags,
        summary: "A new token for the webhook trigger at this position (from 0), shown once; the old URL stops working",
        params: triggerParams,
        response: { 200: autopilotSchema },
      },
    },
    async (request) =>
      rotateHookToken(
        db,
        request.params.ws_id,
        request.params.autopilot_id,
        request.params.trigger_index,
        actorOf(request),
        request.membership.role,
        originOf(request),
      ),
  );

  routes.post(
    "/autopilots/:autopilot_id/fire",
    {
      schema: {
        tags,
        summary: "Fire it now (`trigger_kind: manual`), enabled or not; the answer is the run",
        params: autopilotParams,
        response: { 201: runSchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await fireNow(db, request.params.ws_id, request.params.autopilot_id, settings)),
  );

  routes.get(
    "/autopilots/:autopilot_id/runs",
    {
      schema: {
        tags,
        summary: "Every fire, newest first",
        params: autopilotParams,
        querystring: runsQuery,
        response: { 200: z.array(runSchema) },
      },
    },
    async (request) => listRuns(db, request.params.ws_id, request.params.autopilot_id, request.query),
  );
}
