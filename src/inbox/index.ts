// The inbox plugin: per-person items (written by the features, items.ts and notices.ts) read under /me/inbox, and
// their stream. One listener per process hears which person has a new item (PostgreSQL LISTEN, or in-process on
// SQLite); the hub writes it to that person's streams here.
import type { FastifyInstance } from "fastify";
import type { Authenticator } from "../auth/authenticator.ts";
import type { Db, SqlDialect } from "../db/index.ts";
import { openSignals } from "../db/signals.ts";
import type { AccessWatch } from "../events/access-watch.ts";
import { TICKET_TTL_MS, TicketService } from "../events/tickets.ts";
import type { OpenStreams } from "../http/open-streams.ts";
import { DEFAULT_MAX_UNREAD_BYTES } from "../http/sse.ts";
import { INBOX_CHANNEL } from "./items.ts";
import { inboxRoutes, inboxStreamRoute } from "./routes.ts";
import { InboxStreamHub } from "./stream.ts";

export { addInboxItems, markSourceRead } from "./items.ts";

export interface InboxOptions {
  db: Db;
  dialect: SqlDialect;
  databaseUrl: string;
  authenticator: Authenticator;
  jwtSecret: string;
  keepAliveMs: number;
  openStreams: OpenStreams;
  /** Ends a key's stream when the key is revoked, as event streams end. */
  accessWatch: AccessWatch;
  ticketTtlMs?: number;
}

/** Registered at the root; its routes live under /api/v1/me/inbox. */
export async function inboxPlugin(app: FastifyInstance, options: InboxOptions): Promise<void> {
  const signals = openSignals(options.dialect, options.databaseUrl, [INBOX_CHANNEL], app.log);
  let closing = false;
  const hub = new InboxStreamHub(options.db, signals, options.keepAliveMs, (error) => {
    if (!closing)
      app.log.error({ message: error instanceof Error ? error.message : String(error) }, "inbox: read failed");
  });
  app.addHook("preClose", async () => {
    closing = true;
    hub.close();
  });
  app.addHook("onClose", async () => signals.close());
  await signals.ready;

  const routeOptions = {
    db: options.db,
    authenticator: options.authenticator,
    hub,
    tickets: new TicketService(options.jwtSecret, options.ticketTtlMs ?? TICKET_TTL_MS, "inbox"),
    openStreams: options.openStreams,
    accessWatch: options.accessWatch,
    maxUnreadBytes: DEFAULT_MAX_UNREAD_BYTES,
  };
  await app.register(inboxRoutes, { ...routeOptions, prefix: "/api/v1/me/inbox" });
  await app.register(inboxStreamRoute, { ...routeOptions, prefix: "/api/v1/me/inbox" });
}
