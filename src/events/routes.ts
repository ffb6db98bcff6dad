// GET events (the outbox, paged by seq), POST events/tickets, GET events/stream (server-sent events).
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { workspaceParams } from "../api/params.ts";
import type { Authenticator } from "../auth/authenticator.ts";
import { loadMembership } from "../auth/membership.ts";
import type { Principal } from "../auth/principal.ts";
import type { Db } from "../db/index.ts";
import { isId, timestampAt } from "../db/values.ts";
import { forbidden, unauthorized } from "../http/errors.ts";
import type { OpenStreams } from "../http/open-streams.ts";
import { eventStream } from "../http/openapi.ts";
import { readEvents } from "./outbox.ts";
import { eventSchema, listEventsQuery, streamHeaders, streamQuery, ticketSchema } from "./schemas.ts";
import type { EventStreamHub, SubscriberIdentity } from "./stream.ts";
import type { TicketService } from "./tickets.ts";

const tags = ["events"];

interface EventRouteOptions {
  db: Db;
  hub: EventStreamHub;
  tickets: TicketService;
  authenticator: Authenticator;
  /** Unsent bytes after which a subscriber that stopped reading is dropped. */
  maxUnreadBytes: number;
  openStreams: OpenStreams;
}

/** Registered under `/workspaces/:ws_id`, inside the membership guard. */
export async function eventRoutes(app: FastifyInstance, options: EventRouteOptions): Promise<void> {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.get(
    "/events",
    {
      schema: {
        tags,
        summary: "The workspace's events, oldest first; page with after_seq = the last seq you have",
        params: workspaceParams,
        querystring: listEventsQuery,
        response: { 200: z.array(eventSchema) },
      },
    },
    async (request) =>
      readEvents(options.db, request.params.ws_id, {
        afterSeq: request.query.after_seq ?? 0,
        limit: request.query.limit,
        offset: request.query.offset,
        types: request.query.types ?? [],
      }),
  );

  routes.post(
    "/events/tickets",
    {
      schema: {
        tags,
        summary: "A one-minute ticket for GET events/stream?ticket=… (for EventSource, which sends no headers)",
        params: workspaceParams,
        response: { 201: ticketSchema },
      },
    },
    async (request, reply) => {
      const { ticket, expiresAt } = options.tickets.issue({
        workspaceId: request.params.ws_id,
        userId: request.principal.user.id,
        apiKeyId: request.principal.apiKey?.id,
      });
      return reply.code(201).send({ ticket, expires_at: timestampAt(expiresAt) });
    },
  );
}

declare module "fastify" {
  interface FastifyRequest {
    streamCaller: SubscriberIdentity;
  }
}

/**
 * GET /workspaces/:ws_id/events/stream in a scope of its own: besides a bearer token or API key, it takes a ticket
 * in the query string. Checks run in onRequest, so 401 comes before 403 before 422 as everywhere.
 */
export async function eventStreamRoute(app: FastifyInstance, options: EventRouteOptions): Promise<void> {
  app.decorateRequest("streamCaller", undefined as unknown as SubscriberIdentity);
  app.addHook("onRequest", async (request) => {
    request.streamCaller = await authenticateStream(request, options);
  });
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.get(
    "/events/stream",
    {
      // A HEAD request would open a stream with nothing to send it.
      exposeHeadRoute: false,
      schema: {
        tags,
        summary: "The workspace's events as server-sent events: missed ones from the outbox first, then live",
        description:
          "Frames are `id: <seq>`, `event: <type>`, `data: <Event JSON>`. `Last-Event-ID` (or `after_seq`) replays " +
          "every event after it, then the stream goes live with no gap and no duplicate; without either, it starts " +
          "at the present. A comment line (`: keepalive`) every 15 s while quiet. A client that stops reading is disconnected; " +
          "it reconnects with Last-Event-ID. Credentials: bearer token, API key, or `?ticket=` from POST events/tickets.",
        params: workspaceParams,
        querystring: streamQuery,
        headers: streamHeaders,
        response: { 200: eventStream("The workspace's events, then `: keepalive` comments while quiet") },
      },
    },
    async (request, reply) => {
      const stream = await options.openStreams.open(reply, request.streamCaller.userId, "events", {
        maxUnreadBytes: options.maxUnreadBytes,
      });
      if (!stream) return reply;
      void options.hub.subscribe(stream, {
        ...request.streamCaller,
        workspaceId: request.params.ws_id,
        afterSeq: request.headers["last-event-id"] ?? request.query.after_seq,
        types: request.query.types ?? [],
      });
      return reply;
    },
  );
}

const TICKET_MESSAGES = { invalid: "Invalid ticket", expired: "Ticket expired" } as const;

async function authenticateStream(request: FastifyRequest, options: EventRouteOptions): Promise<SubscriberIdentity> {
  const workspaceId = (request.params as { ws_id?: string }).ws_id ?? "";
  const ticket = (request.query as { ticket?: unknown }).ticket;
  const hasCredential = request.headers.authorization !== undefined || request.headers["x-api-key"] !== undefined;
  if (hasCredential || typeof ticket !== "string" || ticket === "") {
    const principal = await options.authenticator.require(request.headers);
    await loadMembership(options.db, principal, workspaceId);
    return { userId: principal.user.id, apiKeyId: principal.apiKey?.id };
  }
  const check = options.tickets.check(ticket);
  if (!check.ok) throw unauthorized(TICKET_MESSAGES[check.reason]);
  const { claims } = check;
  if (claims.workspaceId !== workspaceId) throw forbidden("This ticket is for another workspace");
  if (claims.apiKeyId !== undefined) {
    const key = isId(claims.apiKeyId)
      ? await options.db
          .selectFrom("api_keys")
          .select("id")
          .where("id", "=", claims.apiKeyId)
          .where("workspace_id", "=", workspaceId)
          .executeTakeFirst()
      : undefined;
    if (!key) throw unauthorized(TICKET_MESSAGES.invalid);
  }
  // Whoever bought the ticket must still be a member when using it.
  const principal: Principal = {
    user: { id: claims.userId, name: "", email: "" },
    ...(claims.apiKeyId !== undefined && { apiKey: { id: claims.apiKeyId, workspaceId } }),
  };
  await loadMembership(options.db, principal, workspaceId);
  return { userId: claims.userId, apiKeyId: claims.apiKeyId };
}
