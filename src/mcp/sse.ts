// Legacy SSE transport: GET /sse opens a stream whose first event names the POST endpoint of its session; each message
// POSTed there is answered 202 and its reply travels on that stream. The stream is written straight on the socket
// (http/event-stream.ts), so a session holds only its socket, its caller and an abort controller, and is gone when
// the stream closes. Every POST is checked against the caller that opened the session (caller.ts) before it reaches
// the session here. Sessions are also recorded for the other processes sharing the database (session-routing.ts),
// which forward the messages posted to them.
import { randomBytes } from "node:crypto";
import type { Socket } from "node:net";
import type { FastifyReply } from "fastify";
import { openEventStream } from "../http/event-stream.ts";
import type { ToolContext } from "../tools/registry.ts";
import type { Caller } from "./caller.ts";
import type { McpDispatcher } from "./dispatcher.ts";
import type { SessionDelivery, SessionRouting } from "./session-routing.ts";

const KEEPALIVE_INTERVAL_MS = 15_000;
export const MESSAGES_PATH = "/messages/";
const SESSION_ID = /^[0-9a-f]{32}$/;
const KEEPALIVE_FRAME = ": keepalive\n\n";
/** A client that stops reading its stream is dropped rather than buffered for without limit. */
const MAX_UNREAD_BYTES = 8 * 1024 * 1024;

interface SseSession {
  socket: Socket;
  /** Who opened the session: every post must come from the same principal. */
  opener: Caller;
  /** The opener's tool scope, with the session's abort signal. */
  caller: ToolContext;
  /** Aborted when the stream closes, so a running tool can stop. */
  abort: AbortController;
}

type SessionLookup = { found: true; opener: Caller } | { found: false; status: 400 | 404; detail: string };

export class SseSessions {
  private readonly sessions = new Map<string, SseSession>();
  private readonly keepalive: NodeJS.Timeout;

  constructor(
    private readonly dispatcher: McpDispatcher,
    private readonly routing: SessionRouting,
    keepaliveMs = KEEPALIVE_INTERVAL_MS,
  ) {
    // One timer for every stream rather than one per session.
    this.keepalive = setInterval(() => this.writeAll(KEEPALIVE_FRAME), keepaliveMs).unref();
  }

  /** Takes over the reply's socket, sends the endpoint event and keeps the stream until the client closes it. */
  async open(reply: FastifyReply, opener: Caller): Promise<void> {
    // A flat string: a replaceAll result would keep its rope of pieces alive as the Map key.
    const sessionId = randomBytes(16).toString("hex");
    // Recorded before it is announced: the client's first post may reach another process.
    await this.routing.opened(sessionId, opener);
    const socket = openEventStream(reply, `event: endpoint\ndata: ${MESSAGES_PATH}?session_id=${sessionId}\n\n`);
    if (!socket) {
      await this.routing.closed(sessionId);
      return;
    }
    const abort = new AbortController();
    this.sessions.set(sessionId, { socket, opener, caller: { ...opener.scope, signal: abort.signal }, abort });
    socket.once("close", () => {
      this.sessions.delete(sessionId);
      abort.abort();
      this.routing.closed(sessionId).catch(() => {});
    });
  }

  /** 400 for a missing or malformed session id, 404 for a well-formed one that is not open here (it may be elsewhere). */
  check(sessionId: string): SessionLookup {
    if (!SESSION_ID.test(sessionId)) return { found: false, status: 400, detail: "Missing or malformed session_id" };
    const session = this.sessions.get(sessionId);
    if (!session) return { found: false, status: 404, detail: "Session not found" };
    return { found: true, opener: session.opener };
  }

  /** Ends one session now (its credential no longer holds): the stream closes and later posts find nothing. */
  end(sessionId: string): void {
    const session = this.sessions.get(sessionId);
    if (!session) return;
    this.sessions.delete(sessionId);
    session.abort.abort();
    session.socket.end();
  }

  /** Dispatches one message of a checked session and writes its reply, if any, on the session's stream. */
  async deliver(sessionId: string, body: string): Promise<void> {
    const session = this.sessions.get(sessionId);
    if (!session) return;
    const outcome = await this.dispatcher.dispatchText(body, session.caller);
    if (outcome.response !== undefined) write(session.socket, `event: message\ndata: ${outcome.response}\n\n`);
  }

  /** What another process forwarded to a session held here. */
  arrived(delivery: SessionDelivery): void {
    if (delivery.kind === "end") this.end(delivery.sessionId);
    else void this.deliver(delivery.sessionId, delivery.body);
  }

  /** Ends every stream (server shutdown). */
  closeAll(): void {
    clearInterval(this.keepalive);
    for (const session of this.sessions.values()) session.socket.end();
    this.sessions.clear();
  }

  private writeAll(frame: string): void {
    for (const session of this.sessions.values()) write(session.socket, frame);
  }
}

function write(socket: Socket, frame: string): void {
  if (socket.writableEnded || socket.destroyed) return;
  if (socket.writableLength > MAX_UNREAD_BYTES) socket.destroy();
  else socket.write(frame);
}
