// Builds the one Fastify app that serves the platform API, the tool protocol and the agent UI.
import cors from "@fastify/cors";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import Fastify, { type FastifyInstance, type FastifyServerOptions, LogController } from "fastify";
import { serializerCompiler, validatorCompiler } from "fastify-type-provider-zod";
import { registryToolNameCheck } from "./agents/tools.ts";
import { aguiRoutes } from "./agui/routes.ts";
import { DEFAULT_BCRYPT_ROUNDS } from "./auth/passwords.ts";
import {
  DEFAULT_LOGIN_RATE_LIMIT,
  LoginRateLimiter,
  type LoginRateLimitOptions,
  RegistrationRateLimiter,
} from "./auth/rate-limit.ts";
import { autopilotsPlugin } from "./autopilots/index.ts";
import type { Config, TrustProxy } from "./config.ts";
import { buildCore } from "./core.ts";
import type { DatabaseHandle } from "./db/index.ts";
import { AccessWatch } from "./events/access-watch.ts";
import { type EventsTuning, eventsPlugin } from "./events/index.ts";
import { openEventSignal } from "./events/signal.ts";
import { clientError, frameworkError, registerErrorHandler } from "./http/errors.ts";
import { jsonBodies } from "./http/json-body.ts";
import { listensOnLoopbackOnly, originIsLoopback } from "./http/loopback.ts";
import { OpenStreams } from "./http/open-streams.ts";
import { openapiOptions } from "./http/openapi.ts";
import { logOneLinePerRequest } from "./http/request-log.ts";
import { requestTimeoutOptions } from "./http/request-timeout.ts";
import { systemResolver } from "./http/targets.ts";
import { inboxPlugin } from "./inbox/index.ts";
import { mcpRoutes } from "./mcp/index.ts";
import { Drain } from "./ops/drain.ts";
import { ServerMetrics } from "./ops/metrics.ts";
import { opsRoutes } from "./ops/routes.ts";
import { platformRoutes } from "./platform/index.ts";
import type { IssuePageCache } from "./platform/issues/page-cache.ts";
import { runtimesPlugin } from "./runtimes/index.ts";
import { tasksWaitingForRuntime } from "./runtimes/waiting.ts";
import { skillsPlugin } from "./skills/index.ts";
import type { ToolRegistry } from "./tools/registry.ts";
import { usagePlugin } from "./usage/index.ts";
import { PriceTable } from "./usage/prices.ts";
import { VERSION } from "./version.ts";
import { DEFAULT_DIST_DIR, webRoutes } from "./web/index.ts";
import { workPlugin } from "./work/index.ts";
import { openWorkSignals } from "./work/signals.ts";

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
  /** The issue list's page cache; a test hands its own (with small bounds) to watch its size. */
  issuePageCache?: IssuePageCache;
  /** Tool-protocol tuning; tests shorten the SSE keep-alive. */
  mcp?: { keepaliveMs?: number };
  /** Event stream and webhook tuning; tests shorten keep-alives and retry delays, and point webhook names. */
  events?: EventsTuning;
  /** Started on SIGTERM by the serve command: /ready turns 503 and the worker stops claiming tasks. */
  drain?: Drain;
  /** The built dashboard; web/dist unless a test points elsewhere. */
  webDistDir?: string;
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
    // Ids of any length reach the routes, which answer 404 (403 for a workspace) for one that names nothing: no URL
    // Node accepts (16 KiB of headers) holds a longer parameter.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 16 * 1024 },
    frameworkErrors: frameworkError,
    clientErrorHandler: clientError,
    forceCloseConnections: "idle",
    trustProxy: trustProxyOption(config.http.trustProxy),
    ...requestTimeoutOptions(config.http.requestBodyTimeoutMs),
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandler(app);
  jsonBodies(app);
  logOneLinePerRequest(app);
  const drain = options.drain ?? new Drain();
  const metrics = new ServerMetrics(database.db);
  metrics.instrument(app);
  // While shutting down, a keep-alive socket must not hold the server open after its last response.
  app.addHook("onSend", (_request, reply, payload, done) => {
    if (!app.server.listening) reply.header("connection", "close");
    done(null, payload);
  });

  // The shared parts, built once and handed to each plugin as only what it uses.
  const { db, dialect } = database;
  const { tokens, authenticator, tools, runtime, status } = buildCore(config, db, options.registry);
  // Where agents' HTTP MCP servers may be: checked when an agent is saved, and on every request of its runs.
  const mcpTargets = { allowPrivate: config.work.mcpAllowPrivate, resolve: systemResolver, what: "MCP server" };
  runtime.onModelTurn((model, usage) => metrics.modelTurn(model, usage));
  app.addHook("onClose", async () => status.close());

  // Bound to loopback, only pages served from a loopback name may call from a browser; bound elsewhere, any page
  // may (with the caller's own credentials).
  await app.register(cors, {
    origin: (origin, allow) =>
      allow(null, origin === undefined || !listensOnLoopbackOnly(app.server) || originIsLoopback(origin)),
    methods: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"],
    exposedHeaders: ["Mcp-Session-Id", "WWW-Authenticate"],
  });
  await app.register(swagger, openapiOptions(VERSION));
  await app.register(swaggerUi, { routePrefix: "/docs" });
  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());
  await app.register(opsRoutes, { db, drain, metrics, metricsToken: config.operations.metricsToken });

  await app.register(platformRoutes, {
    prefix: "/api/v1",
    db,
    dialect,
    tokens,
    authenticator,
    loginLimiter: new LoginRateLimiter(db, options.loginRateLimit ?? DEFAULT_LOGIN_RATE_LIMIT),
    registrationLimiter: new RegistrationRateLimiter(db, config.http.registerRateLimit),
    passwordRounds: options.passwordRounds ?? DEFAULT_BCRYPT_ROUNDS,
    isDev: config.isDev,
    isKnownTool: registryToolNameCheck(tools),
    mcpStdio: config.work.mcpStdio,
    mcpTargets,
    issuePages: options.issuePageCache,
    recordingsDir: config.voice.recordingsDir,
  });
  // Run streams end when their viewer loses access, as the event stream does: through its feeds.
  const accessWatch = new AccessWatch();
  const openStreams = new OpenStreams(db, { maxPerUser: config.http.maxStreamsPerUser });
  app.addHook("onClose", async () => openStreams.close());
  // One listener for the workspaces' events per process, heard by the streams, webhooks and autopilots alike.
  const eventSignal = openEventSignal(dialect, config.databaseUrl, app.log);
  app.addHook("onClose", async () => eventSignal.close());
  await app.register(eventsPlugin, {
    signal: eventSignal,
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
    accessWatch,
    openStreams,
    onLiveEvents: (oldestCreatedAt) => metrics.eventsDelivered(oldestCreatedAt),
  });
  await app.register(inboxPlugin, {
    db,
    dialect,
    databaseUrl: config.databaseUrl,
    authenticator,
    jwtSecret: config.jwtSecret,
    keepAliveMs: options.events?.keepAliveMs ?? config.events.keepAliveMs,
    ticketTtlMs: options.events?.ticketTtlMs,
    openStreams,
    accessWatch,
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
  // How processes hear of work (PostgreSQL: one LISTEN connection), shared by the worker and the runners' long polls.
  const workSignals = openWorkSignals(db, config.databaseUrl, app.log);
  await workSignals.ready;
  app.addHook("onClose", async () => workSignals.close());
  const prices = PriceTable.load(config.agent.modelPrices);
  await app.register(workPlugin, {
    db,
    prices,
    signals: workSignals,
    authenticator,
    runtime,
    tools,
    modelSettings: config.agent,
    settings: config.work,
    mcpTargets,
    drain,
    waitingForRuntime: tasksWaitingForRuntime,
    accessWatch,
    openStreams,
  });
  await app.register(runtimesPlugin, { db, signals: workSignals, authenticator, settings: config.work, prices });
  await app.register(autopilotsPlugin, {
    prefix: "/api/v1",
    db,
    signal: eventSignal,
    authenticator,
    settings: { maxFiresPerHour: config.autopilots.maxFiresPerHour },
  });
  await app.register(skillsPlugin, { db, authenticator });
  await app.register(usagePlugin, { db, authenticator });
  await app.register(aguiRoutes, {
    db,
    authenticator,
    runtime,
    isDev: config.isDev,
    keepAliveMs: config.agent.keepAliveMs,
    openStreams,
  });
  // Last: its catch-all for client routes must see every server route already in place.
  await app.register(webRoutes, { distDir: options.webDistDir ?? DEFAULT_DIST_DIR });
  return app;
}

/** Fastify takes a hop count too, but its types do not say so: the same rule as a function. */
function trustProxyOption(trustProxy: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trustProxy !== "number") return trustProxy;
  return (_address, hop) => hop < trustProxy;
}
