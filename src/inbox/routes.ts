// GET me/inbox, GET me/inbox/count, POST me/inbox/{id}/read, POST me/inbox/read-all, POST me/inbox/tickets, and
// GET me/inbox/stream (server-sent events) in a scope of its own that also takes a ticket.
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { Authenticator } from "../auth/authenticator.ts";
import type { Principal } from "../auth/principal.ts";
import type { Db } from "../db/index.ts";
import { isId, timestampAt } from "../db/values.ts";
import type { AccessWatch } from "../events/access-watch.ts";
import type { TicketService } from "../events/tickets.ts";
import { forbidden, unauthorized } from "../http/errors.ts";
import type { OpenStreams } from "../http/open-streams.ts";
import { eventStream } from "../http/openapi.ts";
import { checkWorkspaceFilter, countUnread, type InboxOwner, listInbox, readAll, readItem } from "./reads.ts";
import {
  inboxItemSchema,
  inboxStreamQuery,
  inboxTicketSchema,
  itemParams,
  listInboxQuery,
  readAllSchema,
  unreadSchema,
  workspaceQuery,
} from "./schemas.ts";
import type { InboxStreamHub } from "./stream.ts";

const tags = ["inbox"];

export interface InboxRouteOptions {
  db: Db;
  authenticator: Authenticator;
  hub: InboxStreamHub;
  tickets: TicketService;
  openStreams: OpenStreams;
  accessWatch: AccessWatch;
  maxUnreadBytes: number;
}

/** The inbox is a person's: a task token (an agent) has none. */
function ownerOf(principal: Principal): InboxOwner {
  if (principal.agent) throw forbidden("The inbox is a person's; a task token has none");
  return { userId: principal.user.id, boundWorkspaceId: principal.apiKey?.workspaceId, apiKeyId: principal.apiKey?.id };
}

declare module "fastify" {
  interface FastifyRequest {
    inboxOwner: InboxOwner;
  }
}

/** Registered under `/me/inbox`. */
export async function inboxRoutes(app: FastifyInstance, options: InboxRouteOptions): Promise<void> {
  const { db } = options;
  app.decorateRequest("inboxOwner", undefined as unknown as InboxOwner);
  app.addHook("onRequest", async (request) => {
    request.inboxOwner = ownerOf(await options.authenticator.require(request.headers));
  });
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.get(
    "",
    {
      schema: {
        tags,
        summary: "Your inbox, newest first",
        description: "Items of the workspaces you are a member of (with an API key: of its workspace only).",
        querystring: listInboxQuery,
        response: { 200: z.array(inboxItemSchema) },
      },
    },
    async (request) => {
      const { unread, workspace_id, limit, offset } = request.query;
      return listInbox(db, request.inboxOwner, { unread, workspaceId: workspace_id }, { limit, offset });
    },
  );

  routes.get(
    "/count",
    {
      schema: {
        tags,
        summary: "How many of your items are unread",
        querystring: workspaceQuery,
        response: { 200: unreadSchema },
      },
    },
    async (request) => {
      const workspaceId = request.query.workspace_id;
      if (workspaceId !== undefined) await checkWorkspaceFilter(db, request.inboxOwner, workspaceId);
      return { unread: await countUnread(db, request.inboxOwner, workspaceId) };
    },
  );

  routes.post(
    "/:id/read",
    {
      schema: {
        tags,
        summary: "Marks one item read (again is fine)",
        params: itemParams,
        response: { 200: inboxItemSchema },
      },
    },
    async (request) => readItem(db, request.inboxOwner, request.params.id),
  );

  routes.post(
    "/read-all",
    {
      schema: {
        tags,
        summary: "Marks every unread item read (of one workspace, with workspace_id)",
        querystring: workspaceQuery,
        response: { 200: readAllSchema },
      },
    },
    async (request) => ({ read: await readAll(db, request.inboxOwner, request.query.workspace_id) }),
  );

  routes.post(
    "/tickets",
    {
      schema: {
        tags,
        summary: "A one-minute ticket for GET me/inbox/stream?ticket=… (for EventSource, which sends no headers)",
        response: { 201: inboxTicketSchema },
      },
    },
    async (request, reply) => {
      const { ticket, expiresAt } = options.tickets.issue({
        workspaceId: request.inboxOwner.boundWorkspaceId ?? "",
        userId: request.inboxOwner.userId,
        apiKeyId: request.inboxOwner.apiKeyId,
      });
      return reply.code(201).send({ ticket, expires_at: timestampAt(expiresAt) });
    },
  );
}

/** GET /me/inbox/stream: besides a bearer token or API key, it takes a ticket in the query string. */
export async function inboxStreamRoute(app: FastifyInstance, options: InboxRouteOptions): Promise<void> {
  app.decorateRequest("inboxOwner", undefined as unknown as InboxOwner);
  app.addHook("onRequest", async (request) => {
    request.inboxOwner = await authenticateStream(request, options);
  });
  app.withTypeProvider<ZodTypeProvider>().get(
    "/stream",
    {
      // A HEAD request would open a stream with nothing to send it.
      exposeHeadRoute: false,
      schema: {
        tags,
        summary: "Your new inbox items as server-sent events",
        description:
          "Frames are `event: inbox.item`, `data: <InboxItem JSON>`, only your own, from the moment the stream opens " +
          "(read GET me/inbox for what came before). A comment line (`: keepalive`) every 15 s while quiet. " +
          "Credentials: bearer token, API key (its workspace's items only), or `?ticket=` from POST me/inbox/tickets.",
        querystring: inboxStreamQuery,
        response: { 200: eventStream("Your new items, then `: keepalive` comments while quiet") },
      },
    },
    async (request, reply) => {
      const owner = request.inboxOwner;
      const stream = await options.openStreams.open(reply, owner.userId, "inbox", {
        maxUnreadBytes: options.maxUnreadBytes,
      });
      if (!stream) return reply;
      options.hub.subscribe(stream, owner);
      // A key's stream ends once the key is revoked or its person leaves the key's workspace, as event streams do.
      if (owner.boundWorkspaceId !== undefined) {
        const viewer = { userId: owner.userId, apiKeyId: owner.apiKeyId };
        const stop = options.accessWatch.watch(owner.boundWorkspaceId, viewer, () => stream.end());
        stream.onClose(stop);
      }
      return reply;
    },
  );
}

const TICKET_MESSAGES = { invalid: "Invalid ticket", expired: "Ticket expired" } as const;

async function authenticateStream(request: FastifyRequest, options: InboxRouteOptions): Promise<InboxOwner> {
  const ticket = (request.query as { ticket?: unknown }).ticket;
  const hasCredential = request.headers.authorization !== undefined || request.headers["x-api-key"] !== undefined;
  if (hasCredential || typeof ticket !== "string" || ticket === "") {
    return ownerOf(await options.authenticator.require(request.headers));
  }
  const check = options.tickets.check(ticket);
  if (!check.ok) throw unauthorized(TICKET_MESSAGES[check.reason]);
  const { claims } = check;
  const boundWorkspaceId = claims.workspaceId === "" ? undefined : claims.workspaceId;
  // Whoever bought the ticket must still exist, and a key it was bought with must still hold, when using it.
  const user = isId(claims.userId)
    ? await options.db.selectFrom("users").select("id").where("id", "=", claims.userId).executeTakeFirst()
    : undefined;
  if (!user) throw unauthorized(TICKET_MESSAGES.invalid);
  if (claims.apiKeyId !== undefined) {
    const key =
      isId(claims.apiKeyId) && boundWorkspaceId !== undefined
        ? await options.db
            .selectFrom("api_keys")
            .select("id")
            .where("id", "=", claims.apiKeyId)
            .where("workspace_id", "=", boundWorkspaceId)
            .executeTakeFirst()
        : undefined;
    if (!key) throw unauthorized(TICKET_MESSAGES.invalid);
  }
  return { userId: claims.userId, boundWorkspaceId, apiKeyId: claims.apiKeyId };
}
