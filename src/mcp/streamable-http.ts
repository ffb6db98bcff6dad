// Streamable HTTP at /mcp, stateless: every POST carries one message and is answered on its own, so any instance can
// serve any request. No server-initiated stream (GET is 405). A session id is handed out on initialize for clients
// that expect one; it is accepted back and never looked up.
import { randomUUID } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { documented } from "../http/openapi.ts";
import { abortOnDisconnect, type CallerChecks, resolveCaller } from "./caller.ts";
import type { McpDispatcher } from "./dispatcher.ts";
import { streamableDeleteDocs, streamableGetDocs, streamablePostDocs } from "./openapi.ts";

const STREAMABLE_HTTP_PATH = "/mcp";

/** JSON unless the client accepts only an event stream (the spec lets a server pick either when both are offered). */
function wantsEventStream(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  return accept.includes("text/event-stream") && !accept.includes("application/json") && !accept.includes("*/*");
}

type WorkspaceQuery = { workspace_id?: string };

export function streamableHttpRoutes(scope: FastifyInstance, checks: CallerChecks, dispatcher: McpDispatcher): void {
  scope.post(
    STREAMABLE_HTTP_PATH,
    { config: { swaggerTransform: documented(streamablePostDocs) } },
    async (request: FastifyRequest<{ Querystring: WorkspaceQuery }>, reply) => {
      const caller = abortOnDisconnect((await resolveCaller(checks, request)).scope, reply.raw);
      const outcome = await dispatcher.dispatchText((request.body as string | undefined) ?? "", caller);
      if (outcome.response === undefined) return reply.code(202).send();
      if (outcome.method === "initialize") reply.header("mcp-session-id", randomUUID().replaceAll("-", ""));
      reply.code(outcome.malformed ? 400 : 200);
      if (wantsEventStream(request.headers.accept)) return sendAsEvent(reply, outcome.response);
      return reply.header("content-type", "application/json; charset=utf-8").send(outcome.response);
    },
  );

  // Credentials first: a client told "405" for a wrong key reports the wrong problem.
  scope.get(
    STREAMABLE_HTTP_PATH,
    { config: { swaggerTransform: documented(streamableGetDocs) } },
    async (request: FastifyRequest<{ Querystring: WorkspaceQuery }>, reply) => {
      await resolveCaller(checks, request);
      return reply
        .code(405)
        .header("allow", "POST, DELETE")
        .send({ detail: "This server opens no stream on GET /mcp" });
    },
  );

  // Stateless: there is no session to end, and saying so lets clients that always send DELETE close cleanly.
  scope.delete(
    STREAMABLE_HTTP_PATH,
    { config: { swaggerTransform: documented(streamableDeleteDocs) } },
    async (request: FastifyRequest<{ Querystring: WorkspaceQuery }>, reply) => {
      await resolveCaller(checks, request);
      return reply.code(200).send();
    },
  );
}

function sendAsEvent(reply: FastifyReply, response: string): FastifyReply {
  return reply
    .header("content-type", "text/event-stream")
    .header("cache-control", "no-cache")
    .send(`event: message\ndata: ${response}\n\n`);
}
