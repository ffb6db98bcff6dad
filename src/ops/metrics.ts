// The process's Prometheus metrics. The request hot path costs one histogram observe (and, for the few streaming
// routes, a gauge step each way); what lives in the database (tasks by status, the webhook backlog) is read only
// when Prometheus scrapes.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { TASK_STATUSES } from "../db/enums.ts";
import type { Db } from "../db/index.ts";
import { now } from "../db/values.ts";

/** Streaming routes by `METHOD pattern`: each open one is a socket held, shown as `agent_platform_open_streams`. */
const STREAM_ROUTES = new Map([
  ["GET /sse", "mcp_sse"],
  ["GET /api/v1/workspaces/:ws_id/events/stream", "events"],
  ["GET /api/v1/workspaces/:ws_id/runs/:run_id/events", "run_events"],
  ["POST /agui", "agui"],
]);

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Process metrics (CPU, memory, event-loop delay, GC) are the process's, whatever number of apps it builds. */
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

export class ServerMetrics {
  readonly registry = new Registry();
  private readonly requestDuration = new Histogram({
    name: "http_request_duration_seconds",
    help: "HTTP requests by method, route pattern and status, and how long they took (streams excluded)",
    labelNames: ["method", "route", "status_code"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  // Bounded: routes are the registered patterns (or "unmatched"), and methods and statuses are few.
  private readonly requestSeriesByKey = new Map<string, { observe(seconds: number): void }>();
  private readonly openStreams = new Gauge({
    name: "agent_platform_open_streams",
    help: "Streams this process holds open, by kind: mcp_sse, events, run_events, agui",
    labelNames: ["kind"] as const,
    registers: [this.registry],
  });
  private readonly eventLag = new Histogram({
    name: "agent_platform_event_delivery_lag_seconds",
    help: "From an event's commit to its write on this process's live workspace event streams",
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly modelRequests = new Counter({
    name: "agent_platform_model_requests_total",
    help: "Model requests answered, by model",
    labelNames: ["model"] as const,
    registers: [this.registry],
  });
  private readonly modelTokens = new Counter({
    name: "agent_platform_model_tokens_total",
    help: "Model tokens reported by the provider, by model and direction (input, output)",
    labelNames: ["model", "direction"] as const,
    registers: [this.registry],
  });

  constructor(db: Db) {
    for (const kind of new Set(STREAM_ROUTES.values())) this.openStreams.set({ kind }, 0);
    new Gauge({
      name: "agent_platform_tasks",
      help: "Tasks by status, in the whole database (every process sees the same numbers)",
      labelNames: ["status"] as const,
      registers: [this.registry],
      async collect() {
        const rows = await db
          .selectFrom("tasks")
          .select(["status", (eb) => eb.fn.countAll<number>().as("count")])
          .groupBy("status")
          .execute();
        this.reset();
        for (const status of TASK_STATUSES) {
          this.set({ status }, 0);
        }
        for (const row of rows) this.set({ status: row.status }, Number(row.count));
      },
    });
    new Gauge({
      name: "agent_platform_webhook_backlog_seconds",
      help: "Age of the oldest webhook delivery that is due and not yet sent (0 when none waits)",
      registers: [this.registry],
      async collect() {
        const row = await db
          .selectFrom("webhook_deliveries")
          .select((eb) => eb.fn.min("next_attempt_at").as("oldest"))
          .where("status", "=", "pending")
          .where("next_attempt_at", "<=", now())
          .executeTakeFirst();
        this.set(row?.oldest ? Math.max(0, (Date.now() - parseTimestamp(String(row.oldest))) / 1000) : 0);
      },
    });
  }

  /** Instruments every route of `app` (call before the routes are registered). */
  instrument(app: FastifyInstance): void {
    // Per request: one histogram observation, in a callback hook (no promise on the hot path). Only the streaming
    // routes get the open-streams hook.
    app.addHook("onRoute", (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      const kind = methods.map((method) => STREAM_ROUTES.get(`${method} ${route.url}`)).find(Boolean);
      if (kind === undefined) return;
      const countOpen = (_request: FastifyRequest, reply: FastifyReply, done: () => void) => {
        this.openStreams.inc({ kind });
        reply.raw.once("close", () => this.openStreams.dec({ kind }));
        done();
      };
      route.onRequest = [...(route.onRequest === undefined ? [] : [route.onRequest].flat()), countOpen];
    });
    app.addHook("onResponse", (request, reply, done) => {
      this.requestSeries(request.method, request.routeOptions.url ?? "unmatched", reply.statusCode).observe(
        reply.elapsedTime / 1000,
      );
      done();
    });
  }

  /** The histogram series of one method, route and status, looked up by prom-client once (it hashes the labels). */
  private requestSeries(method: string, route: string, status: number): { observe(seconds: number): void } {
    const key = `${method} ${status} ${route}`;
    let series = this.requestSeriesByKey.get(key);
    if (!series) {
      series = this.requestDuration.labels({ method, route, status_code: status });
      this.requestSeriesByKey.set(key, series);
    }
    return series;
  }

  /** Events written to live streams: the oldest one's lag stands for the batch. */
  eventsDelivered(createdAt: string): void {
    this.eventLag.observe(Math.max(0, (Date.now() - parseTimestamp(createdAt)) / 1000));
  }

  modelTurn(model: string, usage: { inputTokens?: number; outputTokens?: number } | undefined): void {
    this.modelRequests.inc({ model });
    if (usage?.inputTokens) this.modelTokens.inc({ model, direction: "input" }, usage.inputTokens);
    if (usage?.outputTokens) this.modelTokens.inc({ model, direction: "output" }, usage.outputTokens);
  }

  async render(): Promise<string> {
    const [own, process] = await Promise.all([this.registry.metrics(), processMetrics().metrics()]);
    return `${own}\n${process}`;
  }
}

/** The call server's metrics: calls in progress, and the process's own. */
export class CallMetrics {
  private readonly registry = new Registry();

  constructor(callsInProgress: () => number) {
    new Gauge({
      name: "agent_platform_calls_in_progress",
      help: "Voice calls this process is bridging right now",
      registers: [this.registry],
      collect() {
        this.set(callsInProgress());
      },
    });
  }

  async render(): Promise<string> {
    const [own, process] = await Promise.all([this.registry.metrics(), processMetrics().metrics()]);
    return `${own}\n${process}`;
  }
}

export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/** Stored times are UTC without a zone suffix (`2026-11-22T11:13:00.916839`). */
const parseTimestamp = (value: string): number => Date.parse(`${value.slice(0, 23)}Z`);
