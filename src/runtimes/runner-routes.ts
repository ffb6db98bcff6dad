// The runner API (spec runtimes.md §2) under /api/v1/runner: every call carries a runner token (401 before anything
// else) and the runner's own `runner_id`; each renews the runner's `last_seen_at`.
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { Authenticator, RunnerCredential } from "../auth/authenticator.ts";
import {
  assignmentSchema,
  claimBody,
  completeBody,
  eventsBody,
  failBody,
  registerBody,
  runnerCall,
  runnerSchema,
  runnerTaskParams,
  runtimeSchema,
  sessionBody,
} from "./schemas.ts";
import type { RunnerService } from "./service.ts";

declare module "fastify" {
  interface FastifyRequest {
    runnerCredential: RunnerCredential;
  }
}

export interface RunnerApiOptions {
  authenticator: Authenticator;
  service: RunnerService;
}

const tags = ["runner"];
const security = [{ bearer: [] }];

/** The server's own address as the caller reached it (behind a trusted proxy, as the proxy says). */
export const platformUrlOf = (request: FastifyRequest): string => `${request.protocol}://${request.host}`;

export async function runnerApiRoutes(app: FastifyInstance, { authenticator, service }: RunnerApiOptions) {
  app.decorateRequest("runnerCredential", undefined as unknown as RunnerCredential);
  // Once the body is read and before it is validated (a 401 still comes first), so that the token and the runner the
  // body names are read in one query.
  app.addHook("preValidation", async (request) => {
    const runnerKey = (request.body as { runner_id?: unknown } | undefined)?.runner_id;
    request.runnerCredential = await authenticator.requireRunner(
      request.headers,
      typeof runnerKey === "string" ? runnerKey : undefined,
    );
  });
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.post(
    "/register",
    {
      schema: {
        tags,
        security,
        summary: "Register this runner and its runtimes (idempotent per runner_id; runtime ids stay stable)",
        body: registerBody,
        response: {
          200: z.object({
            runner: runnerSchema,
            runtimes: z.array(runtimeSchema),
            complete_events: z
              .boolean()
              .describe("This server takes a run's last events with `complete` (its `events` field)"),
          }),
        },
      },
    },
    async (request) => ({
      ...(await service.register(request.runnerCredential, request.body)),
      complete_events: true,
    }),
  );

  routes.post(
    "/heartbeat",
    {
      schema: {
        tags,
        security,
        summary: "The runner is alive: renews the leases of its tasks and names those it must stop now",
        body: runnerCall,
        response: { 200: z.object({ cancel: z.array(z.string()) }) },
      },
    },
    async (request) => service.heartbeat(request.runnerCredential, request.body.runner_id),
  );

  routes.post(
    "/claim",
    {
      schema: {
        tags,
        security,
        summary: "Claim tasks: a long poll answering as soon as one is claimable, or with none after wait_ms",
        body: claimBody,
        response: { 200: z.object({ tasks: z.array(assignmentSchema) }) },
      },
    },
    async (request, reply) => {
      const hungUp = new AbortController();
      const onClose = () => hungUp.abort();
      reply.raw.once("close", onClose);
      try {
        const base = platformUrlOf(request);
        return await service.claim(
          request.runnerCredential,
          request.body,
          { url: base, mcp_url: `${base}/mcp` },
          hungUp.signal,
        );
      } finally {
        reply.raw.off("close", onClose);
      }
    },
  );

  routes.post(
    "/tasks/:task_id/events",
    {
      schema: {
        tags,
        security,
        summary: "The CLI's AG-UI events, numbered from 1 (re-sent batches are idempotent by seq)",
        description:
          "Answers `{cancel: true}` once the task was cancelled under this runner; 409 for a task it does not hold.",
        params: runnerTaskParams,
        body: eventsBody,
        response: { 200: z.object({ cancel: z.boolean() }) },
      },
    },
    async (request) =>
      service.events(request.runnerCredential, request.body.runner_id, request.params.task_id, request.body.events),
  );

  routes.post(
    "/tasks/:task_id/session",
    {
      schema: {
        tags,
        security,
        summary:
          "The CLI's resume pointer (session id and working directory); 409 for a task this runner does not hold",
        params: runnerTaskParams,
        body: sessionBody,
        response: { 200: z.object({}) },
      },
    },
    async (request) => {
      await service.session(request.runnerCredential, request.params.task_id, request.body);
      return {};
    },
  );

  routes.post(
    "/tasks/:task_id/complete",
    {
      schema: {
        tags,
        security,
        summary:
          "The task succeeded: its output is the agent's comment unless the run commented (idempotent; 409 if not held)",
        params: runnerTaskParams,
        body: completeBody,
        response: { 200: z.object({}) },
      },
    },
    async (request) => {
      await service.complete(request.runnerCredential, request.params.task_id, request.body);
      return {};
    },
  );

  routes.post(
    "/tasks/:task_id/fail",
    {
      schema: {
        tags,
        security,
        summary:
          "The task failed: retried with backoff while retryable and attempts remain (idempotent; 409 if not held)",
        params: runnerTaskParams,
        body: failBody,
        response: { 200: z.object({}) },
      },
    },
    async (request) => {
      await service.fail(request.runnerCredential, request.params.task_id, request.body);
      return {};
    },
  );

  routes.post(
    "/deregister",
    {
      schema: {
        tags,
        security,
        summary: "The runner stops: it and its runtimes are offline at once",
        body: runnerCall,
        response: { 200: z.object({}) },
      },
    },
    async (request) => {
      await service.deregister(request.runnerCredential, request.body.runner_id);
      return {};
    },
  );
}
