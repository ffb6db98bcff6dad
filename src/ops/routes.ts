// Operations endpoints: /health (the process is alive), /ready (it can serve: database reachable and migrated, not
// draining) and /metrics (Prometheus text). Scrape each process on its own address, not through the load balancer.
import { timingSafeEqual } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { Db } from "../db/index.ts";
import { isMigrated } from "../db/migrate.ts";
import { forbidden, unauthorized } from "../http/errors.ts";
import { noCredential } from "../http/openapi.ts";
import type { Drain } from "./drain.ts";
import { METRICS_CONTENT_TYPE, type ServerMetrics } from "./metrics.ts";

interface OpsOptions {
  db: Db;
  drain: Drain;
  metrics: ServerMetrics;
  /** Bearer token for /metrics; without one, only direct loopback callers may read it. */
  metricsToken: string | undefined;
  /** A database slower than this to answer counts as unreachable (default 2 s). */
  readyTimeoutMs?: number;
}

const tags = ["operations"];
const readiness = z.object({
  status: z.enum(["ready", "draining", "unavailable"]),
  detail: z.string().optional(),
});

export async function opsRoutes(app: FastifyInstance, options: OpsOptions): Promise<void> {
  const { db, drain, metrics } = options;
  const readyTimeoutMs = options.readyTimeoutMs ?? 2_000;
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.get(
    "/health",
    {
      schema: {
        tags,
        summary: "Liveness: the process answers",
        security: noCredential,
        response: { 200: z.object({ status: z.literal("ok") }) },
      },
    },
    async () => ({ status: "ok" as const }),
  );

  routes.get(
    "/ready",
    {
      schema: {
        tags,
        summary: "Readiness: the database answers and is migrated, and the process is not shutting down",
        description: "503 while draining after SIGTERM or while the database is out of reach; load balancers check it.",
        security: noCredential,
        response: { 200: readiness, 503: readiness },
      },
    },
    async (_request, reply) => {
      if (drain.draining) return reply.code(503).send({ status: "draining", detail: "The server is shutting down" });
      const problem = await databaseProblem(db, readyTimeoutMs);
      if (problem) return reply.code(503).send({ status: "unavailable", detail: problem });
      return { status: "ready" as const };
    },
  );

  routes.get(
    "/metrics",
    {
      schema: {
        tags,
        summary: "Prometheus metrics of this process (text exposition format)",
        description:
          "Requests by route and status with latency histograms, open streams, tasks by status, event delivery lag, " +
          "webhook backlog, model requests and tokens, and the process's CPU, memory and event-loop delay. " +
          "With METRICS_TOKEN set: `Authorization: Bearer <METRICS_TOKEN>`; without it, only direct loopback callers " +
          "(not requests relayed by a proxy).",
        security: noCredential,
        produces: ["text/plain"],
        response: { 200: z.string() },
      },
    },
    async (request, reply) => {
      checkMetricsCaller(request, options.metricsToken);
      return reply
        .type(METRICS_CONTENT_TYPE)
        .serializer(String)
        .send(await metrics.render());
    },
  );
}

async function databaseProblem(db: Db, timeoutMs: number): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`The database did not answer within ${timeoutMs} ms`), timeoutMs);
  });
  const check = isMigrated(db).then(
    (migrated) => (migrated ? undefined : "The database schema is not migrated"),
    () => "The database is out of reach",
  );
  try {
    return await Promise.race([check, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const PROXY_HEADERS = ["forwarded", "x-forwarded-for", "x-real-ip"];

/** Metrics tell a lot about a deployment: a token, or a caller on this machine that no proxy relayed. */
export function checkMetricsCaller(request: FastifyRequest, token: string | undefined): void {
  if (token !== undefined) {
    const given = /^Bearer (.+)$/i.exec(request.headers.authorization ?? "")?.[1] ?? "";
    if (!given) throw unauthorized("Metrics need Authorization: Bearer <METRICS_TOKEN>");
    const expected = Buffer.from(token);
    const actual = Buffer.from(given);
    if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) throw forbidden("Wrong metrics token");
    return;
  }
  const peer = request.raw.socket.remoteAddress ?? "";
  const loopback = peer === "::1" || peer.startsWith("127.") || peer.startsWith("::ffff:127.");
  if (!loopback || PROXY_HEADERS.some((header) => request.headers[header] !== undefined)) {
    throw forbidden("Metrics are served to loopback callers only, unless METRICS_TOKEN is set");
  }
}
