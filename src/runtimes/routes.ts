// Runner tokens (admins), runners and runtimes (members) under /workspaces/{ws} (spec runtimes.md §1), inside the
// membership guard.
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { actorOf, refuseApiKeyCallers } from "../api/access.ts";
import { deleteRoute } from "../api/delete-route.ts";
import { pageQuery } from "../api/pagination.ts";
import { workspaceParams } from "../api/params.ts";
import type { Db } from "../db/index.ts";
import { deleteRunner, listRunners, listRuntimes } from "./runners.ts";
import {
  createdRunnerTokenSchema,
  createRunnerTokenBody,
  runnerListQuery,
  runnerParams,
  runnerSchema,
  runnerTokenParams,
  runnerTokenSchema,
  runtimeListQuery,
  runtimeSchema,
} from "./schemas.ts";
import { createRunnerToken, listRunnerTokens, revokeRunnerToken } from "./tokens.ts";

export interface RuntimeRoutesOptions {
  db: Db;
  /** Takes up the tasks a deleted runner held, at once. */
  recoverLeases: () => Promise<unknown>;
}

const tags = ["runtimes"];

/** Registered under `/workspaces/:ws_id`, inside the membership guard. */
export async function runtimeRoutes(app: FastifyInstance, { db, recoverLeases }: RuntimeRoutesOptions): Promise<void> {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.post(
    "/runner-tokens",
    {
      config: { role: "admin" },
      onRequest: refuseApiKeyCallers,
      schema: {
        tags,
        summary: "Create a runner token (admin): the response holds the token, shown only this once",
        params: workspaceParams,
        body: createRunnerTokenBody,
        response: { 201: createdRunnerTokenSchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await createRunnerToken(db, request.params.ws_id, request.body.name, actorOf(request))),
  );

  routes.get(
    "/runner-tokens",
    {
      config: { role: "admin" },
      schema: {
        tags,
        summary: "Runner tokens of the workspace (admin), never the secret",
        params: workspaceParams,
        querystring: pageQuery,
        response: { 200: z.array(runnerTokenSchema) },
      },
    },
    async (request) => listRunnerTokens(db, request.params.ws_id, request.query),
  );

  deleteRoute(
    app,
    "/runner-tokens/:token_id",
    {
      tags,
      summary: "Revoke a runner token (admin): its runner's next call is a 401",
      params: runnerTokenParams,
      config: { role: "admin" },
      onRequest: refuseApiKeyCallers,
    },
    async (request) => {
      await revokeRunnerToken(db, request.params.ws_id, request.params.token_id, actorOf(request));
    },
  );

  routes.get(
    "/runners",
    {
      schema: {
        tags,
        summary: "Runners of the workspace, oldest first",
        params: workspaceParams,
        querystring: runnerListQuery,
        response: { 200: z.array(runnerSchema) },
      },
    },
    async (request) => listRunners(db, request.params.ws_id, request.query),
  );

  deleteRoute(
    app,
    "/runners/:runner_id",
    {
      tags,
      summary: "Delete a runner (admin): its runtimes go with it, its open tasks go back to the queue",
      params: runnerParams,
      config: { role: "admin" },
    },
    async (request) => {
      await deleteRunner(db, request.params.ws_id, request.params.runner_id);
      await recoverLeases();
    },
  );

  routes.get(
    "/runtimes",
    {
      schema: {
        tags,
        summary: "Runtimes the workspace's runners offer, with status and running tasks",
        params: workspaceParams,
        querystring: runtimeListQuery,
        response: { 200: z.array(runtimeSchema) },
      },
    },
    async (request) => listRuntimes(db, request.params.ws_id, request.query),
  );
}
