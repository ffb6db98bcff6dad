// Legacy SSE transport: GET /sse opens a stream whose first event names the POST endpoint of its session; each message
// POSTed there is answered 202 and its reply travels on that stream. The stream is written straight on the socket
// (http/sse.ts), so a session holds only its socket, its caller and an abort controller, and is gone when
// the stream closes. Every POST is checked against the caller that opened the session (caller.ts) before it reaches
// the session here. Sessions are also recorded for the other processes sharing the database (session-routing.ts),
// which forward the messages posted to them.
import { randomBytes } from "node:crypto";
import type { FastifyReply } from "fastify";
import { KeepAlives, SseStream, sseFrame } from "../http/sse.ts";
import type { ToolContext } from "../tools/registry.ts";
import type { Caller } from "./caller.ts";
import type { McpDispatcher } from "./dispatcher.ts";
import type { SessionDelivery, SessionRouting } from "./session-routing.ts";

const KEEPALIVE_INTERVAL_MS = 15_000;
export const MESSAGES_PATH = "/messages/";
const SESSION_ID = /^[0-9a-f]{32}$/;
/** A client that stops reading its stream is dropped rather than buffered for without limit. */
const MAX_UNREAD_BYTES = 8 * 1024 * 1024;

interface SseSession {
  stream: SseStream;
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
  private readonly keepAlives: KeepAlives;

  constructor(
    private readonly dispatcher: McpDispatcher,
    private readonly routing: SessionRouting,
    keepaliveMs = KEEPALIVE_INTERVAL_MS,
  ) {
    this.keepAlives = new KeepAlives(keepaliveMs, ": keepalive\n\n");
  }

  /** Takes over the reply's socket, sends the endpoint event and keeps the stream until the client closes it. */
  async open(reply: FastifyReply, opener: Caller): Promise<void> {
    // A flat string: a replaceAll result would keep its rope of pieces alive as the Map key.
    const sessionId = randomBytes(16).toString("hex");
    // Recorded before it is announced: the client's first post may reach another process.
    await this.routing.opened(sessionId, opener);
    const stream = SseStream.open(reply, {
      firstFrames: sseFrame({ event: "endpoint", data: `${MESSAGES_PATH}?session_id=${sessionId}` }),
      maxUnreadBytes: MAX_UNREAD_BYTES,
    });
    if (!stream) {
      await this.routing.closed(sessionId);
      return;
    }
    const abort = new AbortController();
    this.sessions.set(sessionId, { stream, opener, caller: { ...opener.scope, signal: abort.signal }, abort });
    this.keepAlives.add(stream);
    stream.onClose(() => {
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
    session.stream.end();
  }

  /** Dispatches one message of a checked session and writes its reply, if any, on the session's stream. */
  async deliver(sessionId: string, body: string): Promise<void> {
    const session = this.sessions.get(sessionId);
    if (!session) return;
    const outcome = await this.dispatcher.dispatchText(body, session.caller);
    if (outcome.response !== undefined) session.stream.send(sseFrame({ event: "message", data: outcome.response }));
  }

  /** What another process forwarded to a session held here. */
  arrived(delivery: SessionDelivery): void {
    if (delivery.kind === "end") this.end(delivery.sessionId);
    else void this.deliver(delivery.sessionId, delivery.body);
  }

  /** Ends every stream (server shutdown). */
  closeAll(): void {
    this.keepAlives.close();
    for (const session of this.sessions.values()) session.stream.end();
    this.sessions.clear();
  }
}
