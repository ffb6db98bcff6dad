// The tool-protocol (MCP) plugin: one dispatcher, three HTTP transports (legacy SSE, direct POST, Streamable HTTP).
// Paths sit at the root: /sse, /messages/, /mcp. The fourth transport, stdio, is its own command (stdio-command.ts).
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Authenticator } from "../auth/authenticator.ts";
import { type Db, isPostgres } from "../db/index.ts";
import { guardLoopback } from "../http/loopback.ts";
import { documented } from "../http/openapi.ts";
import type { ToolInvoker } from "../tools/invoker.ts";
import { challengeRefusedCallers, refuseClientRegistration } from "./auth-challenge.ts";
import { abortOnDisconnect, type CallerChecks, checkSessionPost, resolveCaller } from "./caller.ts";
import { answerDirectPost } from "./direct-post.ts";
import { McpDispatcher, type ServerInfo } from "./dispatcher.ts";
import { messagesDocs, sseDocs } from "./openapi.ts";
import { openSessionRouting } from "./session-routing.ts";
import { MESSAGES_PATH, SseSessions } from "./sse.ts";
import { streamableHttpRoutes } from "./streamable-http.ts";

const SERVER_NAME = "agent-platform";

interface McpOptions {
  tools: ToolInvoker;
  authenticator: Authenticator;
  db: Db;
  /** On PostgreSQL, where legacy SSE sessions are recorded and messages forwarded between processes. */
  databaseUrl: string;
  /** In PLATFORM_ENV=dev callers without a credential get the custom tools; elsewhere a credential is required. */
  isDev: boolean;
  version: string;
  /** Tests shorten the 15 s keep-alive. */
  keepaliveMs?: number;
}

type MessagesQuery = { session_id?: string; sessionId?: string; workspace_id?: string };

export async function mcpRoutes(scope: FastifyInstance, options: McpOptions): Promise<void> {
  const serverInfo: ServerInfo = { name: SERVER_NAME, version: options.version };
  const checks: CallerChecks = { authenticator: options.authenticator, db: options.db, isDev: options.isDev };
  const dispatcher = new McpDispatcher(options.tools, serverInfo, (error) =>
    scope.log.error({ err: error }, "tool-protocol request failed"),
  );
  const routing = openSessionRouting(
    options.db,
    isPostgres(options.db) ? "postgres" : "sqlite",
    options.databaseUrl,
    (delivery) => sessions.arrived(delivery),
    scope.log,
  );
  const sessions = new SseSessions(dispatcher, routing, options.keepaliveMs);
  scope.addHook("preClose", async () => sessions.closeAll());
  scope.addHook("onClose", async () => routing.close());

  // Bodies reach the dispatcher as text, whatever their content type, so a body that is not JSON is a -32700
  // JSON-RPC error instead of the platform API's 422.
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser("*", { parseAs: "string" }, (_request, body, done) => done(null, body));

  guardLoopback(scope);
  challengeRefusedCallers(scope);
  refuseClientRegistration(scope, options.authenticator);

  scope.get(
    "/sse",
    { config: { swaggerTransform: documented(sseDocs) } },
    async (request: FastifyRequest<{ Querystring: MessagesQuery }>, reply) => {
      await sessions.open(reply, await resolveCaller(checks, request));
      return reply;
    },
  );

  scope.post(
    MESSAGES_PATH,
    { config: { swaggerTransform: documented(messagesDocs) } },
    async (request: FastifyRequest<{ Querystring: MessagesQuery }>, reply) => {
      const sessionId = request.query.session_id ?? request.query.sessionId;
      const body = (request.body as string | undefined) ?? "";
      if (sessionId === undefined) {
        const caller = abortOnDisconnect((await resolveCaller(checks, request)).scope, reply.raw);
        return answerDirectPost(dispatcher, body, caller, reply);
      }
      const lookup = sessions.check(sessionId);
      if (lookup.found) {
        await checkSessionPost(checks, request, lookup.opener, () => sessions.end(sessionId));
        reply.code(202).send();
        await sessions.deliver(sessionId, body);
        return reply;
      }
      const elsewhere = lookup.status === 404 ? await routing.findElsewhere(sessionId) : undefined;
      if (!elsewhere) {
        await resolveCaller(checks, request); // a bad credential is 401 before anything is said about the session
        return reply.code(lookup.status).send({ detail: lookup.detail });
      }
      // The post's own credential is checked here, whichever process holds the stream.
      await checkSessionPost(checks, request, elsewhere.opener, () => void routing.end(sessionId).catch(() => {}));
      await routing.forward(elsewhere, body);
      return reply.code(202).send();
    },
  );

  streamableHttpRoutes(scope, checks, dispatcher);
}
