// Builds the one Fastify app that serves the platform API, the tool protocol and the agent UI.
import cors from "@fastify/cors";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import Fastify, { type FastifyInstance, type FastifyServerOptions, LogController } from "fastify";
import {
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  serializerCompiler,
  validatorCompiler,
} from "fastify-type-provider-zod";
import { registryToolNameCheck } from "./agents/tools.ts";
import { aguiRoutes } from "./agui/routes.ts";
import { DEFAULT_BCRYPT_ROUNDS } from "./auth/passwords.ts";
import { DEFAULT_LOGIN_RATE_LIMIT, LoginRateLimiter, type LoginRateLimitOptions } from "./auth/rate-limit.ts";
import type { Config } from "./config.ts";
import { buildCore } from "./core.ts";
import type { DatabaseHandle } from "./db/index.ts";
import { type EventsTuning, eventsPlugin } from "./events/index.ts";
import { registerErrorHandler } from "./http/errors.ts";
import { jsonBodies } from "./http/json-body.ts";
import { listensOnLoopbackOnly, originIsLoopback } from "./http/loopback.ts";
import { mcpRoutes } from "./mcp/index.ts";
import { platformRoutes } from "./platform/index.ts";
import type { ToolRegistry } from "./tools/registry.ts";
import { workPlugin } from "./work/index.ts";

export const VERSION = "0.1.0";
const BODY_LIMIT_BYTES = 1024 * 1024;

export interface ServerOptions {
  config: Config;
  database: DatabaseHandle;
  /** Custom tools and others already added; platform and agent tools are added here. */
  registry?: ToolRegistry;
  logger?: FastifyServerOptions["logger"];
  /** bcrypt cost; 12 unless a test or benchmark needs it lower. */
  passwordRounds?: number;
  loginRateLimit?: LoginRateLimitOptions;
  /** Tool-protocol tuning; tests shorten the SSE keep-alive. */
  mcp?: { keepaliveMs?: number };
  /** Event stream and webhook tuning; tests shorten keep-alives and retry delays, and point webhook names. */
  events?: EventsTuning;
}

export async function buildServer(options: ServerOptions): Promise<FastifyInstance> {
  const { config, database } = options;
  const app = Fastify({
    logger: options.logger ?? {
      level: config.logLevel,
      redact: ["req.headers.authorization", 'req.headers["x-api-key"]'],
    },
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT_BYTES,
    routerOptions: { ignoreTrailingSlash: true },
    forceCloseConnections: "idle",
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandler(app);
  jsonBodies(app);
  logOneLinePerRequest(app);
  // While shutting down, a keep-alive socket must not hold the server open after its last response.
  app.addHook("onSend", async (_request, reply) => {
    if (!app.server.listening) reply.header("connection", "close");
  });

  // The shared parts, built once and handed to each plugin as only what it uses.
  const { db, dialect } = database;
  const { tokens, authenticator, tools, runtime, status } = buildCore(config, db, options.registry);
  app.addHook("onClose", async () => status.close());

  // Bound to loopback, only pages served from a loopback name may call from a browser; bound elsewhere, any page
  // may (with the caller's own credentials).
  await app.register(cors, {
    origin: (origin, allow) =>
      allow(null, origin === undefined || !listensOnLoopbackOnly(app.server) || originIsLoopback(origin)),
    exposedHeaders: ["Mcp-Session-Id", "WWW-Authenticate"],
  });
  await app.register(swagger, {
    openapi: {
      info: { title: "agent-platform", version: VERSION, description: "Platform API, tool protocol and agent UI" },
      components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });
  await app.register(swaggerUi, { routePrefix: "/docs" });
  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());
  app.get("/health", { schema: { hide: true } }, async () => ({ status: "ok" }));

  await app.register(platformRoutes, {
    prefix: "/api/v1",
    db,
    dialect,
    tokens,
    authenticator,
    loginLimiter: new LoginRateLimiter(options.loginRateLimit ?? DEFAULT_LOGIN_RATE_LIMIT),
    passwordRounds: options.passwordRounds ?? DEFAULT_BCRYPT_ROUNDS,
    isDev: config.isDev,
    isKnownTool: registryToolNameCheck(tools),
  });
  await app.register(eventsPlugin, {
    prefix: "/api/v1",
    db,
    dialect,
    databaseUrl: config.databaseUrl,
    authenticator,
    jwtSecret: config.jwtSecret,
    keepAliveMs: config.events.keepAliveMs,
    webhookTimeoutMs: config.events.webhookTimeoutMs,
    webhookAllowPrivate: config.events.webhookAllowPrivate,
    tuning: options.events,
  });
  await app.register(mcpRoutes, {
    tools,
    authenticator,
    db,
    databaseUrl: config.databaseUrl,
    isDev: config.isDev,
    version: VERSION,
    ...options.mcp,
  });
  await app.register(workPlugin, {
    db,
    databaseUrl: config.databaseUrl,
    authenticator,
    runtime,
    tools,
    modelSettings: config.agent,
    settings: config.work,
  });
  await app.register(aguiRoutes, {
    db,
    authenticator,
    runtime,
    isDev: config.isDev,
    keepAliveMs: config.agent.keepAliveMs,
  });
  return app;
}

/** One structured line per request, after it completes; headers (and so credentials) are never logged. */
function logOneLinePerRequest(app: FastifyInstance): void {
  app.addHook("onResponse", async (request, reply) => {
    request.log.info(
      {
        method: request.method,
        url: request.url.split("?")[0],
        statusCode: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
      },
      "request",
    );
  });
}
