// The events plugin: outbox ⇄ stream ⇄ deliveries. One signal per process (PostgreSQL LISTEN, or in-process on
// SQLite) feeds the stream hub and the webhook fan-out; the deliverer sends what the fan-out queued.
// Other features append their events with `appendEvent` (./outbox.ts) inside their own transactions.
import type { FastifyInstance } from "fastify";
import { requireWorkspaceAccess } from "../api/access.ts";
import type { Authenticator } from "../auth/authenticator.ts";
import { type Db, openDatabase, type SqlDialect } from "../db/index.ts";
import type { OpenStreams } from "../http/open-streams.ts";
import { DEFAULT_MAX_UNREAD_BYTES } from "../http/sse.ts";
import { systemResolver } from "../http/targets.ts";
import type { AccessWatch } from "./access-watch.ts";
import { eventRoutes, eventStreamRoute } from "./routes.ts";
import type { EventSignal } from "./signal.ts";
import { EventStreamHub } from "./stream.ts";
import { TICKET_TTL_MS, TicketService } from "./tickets.ts";
import {
  DEFAULT_DISABLE_AFTER_MS,
  DEFAULT_RETRY_DELAYS_MS,
  type DeliverySettings,
  WebhookDeliverer,
} from "./webhooks/deliverer.ts";
import { WebhookFanOut } from "./webhooks/fan-out.ts";
import { webhookRoutes } from "./webhooks/routes.ts";

/** Tuning that tests and benchmarks change; every field has a production default. */
export interface EventsTuning {
  /** Keep-alive comment interval on quiet streams. */
  keepAliveMs?: number;
  /** Unread bytes after which a subscriber is dropped (default 1 MiB). */
  maxUnreadBytes?: number;
  /** Backstop re-read of the outbox by streams and webhooks without a hint (default 5 s). */
  sweepMs?: number;
  ticketTtlMs?: number;
  webhooks?: Partial<DeliverySettings>;
}

interface EventsOptions {
  db: Db;
  dialect: SqlDialect;
  databaseUrl: string;
  authenticator: Authenticator;
  jwtSecret: string;
  keepAliveMs: number;
  webhookTimeoutMs: number;
  webhookAllowPrivate: boolean;
  tuning?: EventsTuning;
  /** The cap on streams open per user. */
  openStreams: OpenStreams;
  /** This process's listener for the workspaces' events (server.ts opens and closes it). */
  signal: EventSignal;
  /** Given this plugin's stream hub, for the streams of other features that end when their viewer loses access. */
  accessWatch?: AccessWatch;
  /** Told when events are written to live streams, with the oldest one's creation time (metrics: delivery lag). */
  onLiveEvents?: (oldestCreatedAt: string) => void;
}

const DEFAULT_SWEEP_MS = 5_000;
const DEFAULT_DELIVERY_SWEEP_MS = 1_000;
const DEFAULT_CONCURRENCY = 64;
// A quarter of a process's slots: a few slow receivers cannot take them all. (Also the sockets per origin, send.ts.)
const DEFAULT_PER_HOOK = 16;

/** Registered under `/api/v1`. */
export async function eventsPlugin(app: FastifyInstance, options: EventsOptions): Promise<void> {
  const { db, dialect, tuning = {} } = options;
  // On PostgreSQL the stream, fan-out and deliveries read and write through a small pool of their own: behind the
  // requests' pool, a burst of writes would hold every new event back until it drained. (SQLite has one connection.)
  const own =
    dialect === "postgres" ? openDatabase(options.databaseUrl, { maxConnections: 4, customPlans: true }) : undefined;
  const workDb = own?.db ?? db;
  let closing = false;
  // Reads cut short by shutdown are no news.
  const logError = (error: unknown) => {
    if (!closing)
      app.log.error({ message: error instanceof Error ? error.message : String(error) }, "events: read failed");
  };

  const { signal } = options;
  const hub = new EventStreamHub(
    workDb,
    signal,
    {
      keepAliveMs: tuning.keepAliveMs ?? options.keepAliveMs,
      sweepMs: tuning.sweepMs ?? DEFAULT_SWEEP_MS,
      onLiveEvents: options.onLiveEvents,
    },
    logError,
  );
  options.accessWatch?.attach(hub);
  const timeoutMs = tuning.webhooks?.timeoutMs ?? options.webhookTimeoutMs;
  const delivery: DeliverySettings = {
    allowPrivate: options.webhookAllowPrivate,
    resolve: systemResolver,
    timeoutMs,
    retryDelaysMs: DEFAULT_RETRY_DELAYS_MS,
    disableAfterMs: DEFAULT_DISABLE_AFTER_MS,
    leaseMs: 2 * timeoutMs + 1_000,
    concurrency: DEFAULT_CONCURRENCY,
    perHook: DEFAULT_PER_HOOK,
    sweepMs: DEFAULT_DELIVERY_SWEEP_MS,
    ...tuning.webhooks,
  };
  const deliverer = new WebhookDeliverer(workDb, dialect, delivery, app.log);
  const fanOut = new WebhookFanOut(workDb, dialect, (hookId) => deliverer.kick(hookId), logError);
  signal.onHint((workspaceId, _seq, event) => fanOut.hint(workspaceId, event));
  const sweepFanOut = () => void fanOut.sweep().catch(logError);
  signal.onResync(() => {
    fanOut.forget();
    sweepFanOut();
  });
  const fanOutSweep = setInterval(sweepFanOut, tuning.sweepMs ?? DEFAULT_SWEEP_MS).unref();

  app.addHook("onReady", async () => {
    await deliverer.releaseStaleLeases();
    sweepFanOut();
    deliverer.kick();
  });
  app.addHook("preClose", async () => {
    closing = true;
    hub.close();
  });
  app.addHook("onClose", async () => {
    clearInterval(fanOutSweep);
    await deliverer.close();
    await own?.close();
  });

  const routeOptions = {
    db,
    hub,
    tickets: new TicketService(options.jwtSecret, tuning.ticketTtlMs ?? TICKET_TTL_MS),
    authenticator: options.authenticator,
    maxUnreadBytes: tuning.maxUnreadBytes ?? DEFAULT_MAX_UNREAD_BYTES,
    openStreams: options.openStreams,
  };
  const policy = { allowPrivate: delivery.allowPrivate, resolve: delivery.resolve };
  await app.register(
    async (workspace) => {
      requireWorkspaceAccess(workspace, options.authenticator);
      await workspace.register(eventRoutes, routeOptions);
      await workspace.register(webhookRoutes, { db, policy, deliverNow: () => deliverer.kick() });
    },
    { prefix: "/workspaces/:ws_id" },
  );
  await app.register(eventStreamRoute, { ...routeOptions, prefix: "/workspaces/:ws_id" });
}
