// The tool-protocol (MCP) plugin: one dispatcher, three HTTP transports (legacy SSE, direct POST, Streamable HTTP).
// Paths sit at the root: /sse, /messages/, /mcp. The fourth transport, stdio, is its own command (stdio-command.ts).
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { AppContext } from "../context.ts";
import { guardLoopback } from "../http/loopback.ts";
import { challengeRefusedCallers, refuseClientRegistration } from "./auth-challenge.ts";
import { abortOnDisconnect, checkSessionPost, resolveCaller } from "./caller.ts";
import { answerDirectPost } from "./direct-post.ts";
import { McpDispatcher, type ServerInfo } from "./dispatcher.ts";
import { MESSAGES_PATH, SseSessions } from "./sse.ts";
import { streamableHttpRoutes } from "./streamable-http.ts";

const SERVER_NAME = "agent-platform";

export interface McpOptions {
  version: string;
  /** Tests shorten the 15 s keep-alive. */
  keepaliveMs?: number;
}

type MessagesQuery = { session_id?: string; sessionId?: string; workspace_id?: string };

export async function mcpRoutes(scope: FastifyInstance, ctx: AppContext, options: McpOptions): Promise<void> {
  const serverInfo: ServerInfo = { name: SERVER_NAME, version: options.version };
  const dispatcher = new McpDispatcher(ctx.registry, serverInfo, (error) =>
    scope.log.error({ err: error }, "tool-protocol request failed"),
  );
  const sessions = new SseSessions(dispatcher, options.keepaliveMs);
  scope.addHook("preClose", async () => sessions.closeAll());

  // Bodies reach the dispatcher as text, whatever their content type, so a body that is not JSON is a -32700
  // JSON-RPC error instead of the platform API's 422.
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser("*", { parseAs: "string" }, (_request, body, done) => done(null, body));

  guardLoopback(scope);
  challengeRefusedCallers(scope);
  refuseClientRegistration(scope, ctx);

  scope.get("/sse", async (request: FastifyRequest<{ Querystring: MessagesQuery }>, reply) => {
    sessions.open(reply, await resolveCaller(ctx, request));
    return reply;
  });

  scope.post(MESSAGES_PATH, async (request: FastifyRequest<{ Querystring: MessagesQuery }>, reply) => {
    const sessionId = request.query.session_id ?? request.query.sessionId;
    const body = (request.body as string | undefined) ?? "";
    if (sessionId === undefined) {
      const caller = abortOnDisconnect((await resolveCaller(ctx, request)).scope, reply.raw);
      return answerDirectPost(dispatcher, body, caller, reply);
    }
    const lookup = sessions.check(sessionId);
    if (!lookup.found) {
      await resolveCaller(ctx, request); // a bad credential is 401 before anything is said about the session
      return reply.code(lookup.status).send({ detail: lookup.detail });
    }
    await checkSessionPost(ctx, request, lookup.opener, () => sessions.end(sessionId));
    reply.code(202).send();
    await sessions.deliver(sessionId, body);
    return reply;
  });

  streamableHttpRoutes(scope, ctx, dispatcher);
}
