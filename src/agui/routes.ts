// POST /agui runs an agent for a thread and streams the run as server-sent events; GET /status says it is available.
// Everything that can be refused (credentials, body, agent) is refused as JSON before the stream starts.
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { findAgent } from "../agents/agent-store.ts";
import { ModelError } from "../agents/model.ts";
import { type AgentRuntime, type AgentSpec, RunError } from "../agents/runtime.ts";
import { type Authenticator, MESSAGES } from "../auth/authenticator.ts";
import { loadMembership } from "../auth/membership.ts";
import type { Principal } from "../auth/principal.ts";
import type { Db } from "../db/index.ts";
import { HttpError, notFound, unauthorized } from "../http/errors.ts";
import { guardLoopback } from "../http/loopback.ts";
import type { OpenStreams } from "../http/open-streams.ts";
import { documented } from "../http/openapi.ts";
import { KeepAlives, SseStream } from "../http/sse.ts";
import { SseRunWriter } from "./events.ts";
import { aguiDocs } from "./openapi.ts";
import { type EventNaming, parseRunInput } from "./request.ts";

const query = z.object({
  agent: z
    .string()
    .min(1)
    .optional()
    .describe("Platform agent id (else forwardedProps.agentId, else the default agent)"),
  dialect: z
    .enum(["ag-ui", "lowercase", "seed"])
    // `seed`, the first name of the lower-case naming, stays accepted for the clients written against it.
    .transform((naming): EventNaming => (naming === "seed" ? "lowercase" : naming))
    .optional()
    .describe("Event names: official UPPER_SNAKE (`ag-ui`) or the same in lower case (`lowercase`; alias `seed`)"),
});

interface AguiOptions {
  db: Db;
  authenticator: Authenticator;
  runtime: AgentRuntime;
  /** In PLATFORM_ENV=dev the default agent may be run without a credential. */
  isDev: boolean;
  /** Keep-alive comment interval on a quiet stream. */
  keepAliveMs: number;
  /** The cap on streams open per user (a run without a user, in dev, is not counted). */
  openStreams: OpenStreams;
}

export async function aguiRoutes(app: FastifyInstance, options: AguiOptions): Promise<void> {
  const { db, authenticator, runtime, isDev } = options;
  const keepAlives = new KeepAlives(options.keepAliveMs, ": keep-alive\n\n");
  app.addHook("onClose", async () => keepAlives.close());
  // Any web page can post to 127.0.0.1: only pages served from a loopback name may run agents and their tools here.
  guardLoopback(app);
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.get(
    "/status",
    {
      schema: {
        tags: ["agent-ui"],
        summary: "Agent-UI availability",
        security: [],
        response: { 200: z.object({ status: z.literal("available") }) },
      },
    },
    async () => ({ status: "available" as const }),
  );

  routes.post(
    "/agui",
    {
      config: { swaggerTransform: documented(aguiDocs) },
      schema: { querystring: query },
    },
    async (request, reply) => {
      const principal = await authenticator.authenticate(request.headers);
      const input = parseRunInput(request.body, request.query.dialect);
      const agent = await chooseAgent(request.query.agent ?? input.agentId, principal, request);

      const controller = new AbortController();
      const stream = principal
        ? await options.openStreams.open(reply, principal.user.id, "agui")
        : SseStream.open(reply);
      if (!stream) return;
      // The client left (or fell behind and was dropped): the run stops.
      stream.onClose(() => controller.abort());
      keepAlives.add(stream);
      const writer = new SseRunWriter(input.dialect, (chunk) => stream.send(chunk));
      writer.runStarted({ threadId: input.threadId, runId: input.runId });
      try {
        await runtime.run({
          agent,
          scope: scopeOf(principal),
          threadId: input.threadId,
          messages: input.messages,
          extraInstructions: input.extraInstructions,
          clientTools: input.clientTools,
          toolContext: { userId: principal?.user.id, workspaceId: principal?.apiKey?.workspaceId },
          signal: controller.signal,
          sink: writer,
        });
        writer.runFinished({ threadId: input.threadId, runId: input.runId });
      } catch (error) {
        if (!controller.signal.aborted) writer.runError(describeRunError(error, request));
      } finally {
        writer.close();
        stream.end();
      }
    },
  );

  async function chooseAgent(
    agentId: string | undefined,
    principal: Principal | undefined,
    request: FastifyRequest,
  ): Promise<AgentSpec> {
    if (agentId === undefined) {
      if (!principal && !isDev) throw unauthorized(MESSAGES.missingHeader);
      return runtime.defaultAgent();
    }
    if (!principal) throw unauthorized(MESSAGES.missingHeader);
    const agent = await findAgent(db, agentId);
    if (!agent) throw notFound("Agent");
    // Another workspace's agent is as unknown to the caller as one that does not exist.
    await loadMembership(db, principal, agent.workspace_id).catch((error: unknown) => {
      if (error instanceof HttpError && error.statusCode === 403) throw notFound("Agent");
      request.log.error({ err: error }, "membership check");
      throw error;
    });
    return runtime.agentSpec(agent);
  }
}

/** Threads of different callers never meet: an API key's workspace, a user, or anonymous (dev only). */
function scopeOf(principal: Principal | undefined): string {
  if (principal?.apiKey) return `ws:${principal.apiKey.workspaceId}`;
  if (principal?.agent) return `task:${principal.agent.taskId}`;
  if (principal) return `user:${principal.user.id}`;
  return "anon";
}

/** Errors that know their code (model, runtime) say what went wrong; anything else stays vague and is logged. */
function describeRunError(error: unknown, request: FastifyRequest): { message: string; code: string } {
  if (error instanceof ModelError || error instanceof RunError) {
    return { message: error.message, code: error.code };
  }
  request.log.error({ err: error }, "agent run failed");
  return { message: "The agent run failed", code: "internal_error" };
}
