// Legacy SSE transport: GET /sse opens a stream whose first event names the POST endpoint of its session; each message
// POSTed there is answered 202 and its reply travels on that stream. Frames are written by hand on the raw response:
// a session holds only its response, its caller and an abort controller, and is gone when the stream closes.
import { randomUUID } from "node:crypto";
import type { OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { FastifyReply } from "fastify";
import type { ToolContext } from "../tools/registry.ts";
import type { McpDispatcher } from "./dispatcher.ts";

export const KEEPALIVE_INTERVAL_MS = 15_000;
export const MESSAGES_PATH = "/messages/";
const SESSION_ID = /^[0-9a-f]{32}$/;
const KEEPALIVE_FRAME = ": keepalive\n\n";
/** A client that stops reading its stream is dropped rather than buffered for without limit. */
const MAX_UNREAD_BYTES = 8 * 1024 * 1024;

interface SseSession {
  response: ServerResponse;
  caller: ToolContext;
  /** Aborted when the stream closes, so a running tool can stop. */
  abort: AbortController;
}

export type SessionLookup = { found: true } | { found: false; status: 400 | 404; detail: string };

export class SseSessions {
  private readonly sessions = new Map<string, SseSession>();
  private readonly keepalive: NodeJS.Timeout;

  constructor(
    private readonly dispatcher: McpDispatcher,
    keepaliveMs = KEEPALIVE_INTERVAL_MS,
  ) {
    // One timer for every stream rather than one per session.
    this.keepalive = setInterval(() => this.writeAll(KEEPALIVE_FRAME), keepaliveMs).unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Takes over the reply's socket, sends the endpoint event and keeps the stream until the client closes it. */
  open(reply: FastifyReply, caller: ToolContext): void {
    const sessionId = randomUUID().replaceAll("-", "");
    const headers: OutgoingHttpHeaders = {
      ...(reply.getHeaders() as OutgoingHttpHeaders),
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    };
    reply.hijack();
    const response = reply.raw;
    response.writeHead(200, headers);
    response.write(`event: endpoint\ndata: ${MESSAGES_PATH}?session_id=${sessionId}\n\n`);
    const abort = new AbortController();
    this.sessions.set(sessionId, { response, caller: { ...caller, signal: abort.signal }, abort });
    response.once("close", () => {
      this.sessions.delete(sessionId);
      abort.abort();
    });
  }

  /** 400 for a missing or malformed session id, 404 for a well-formed one that is not open here. */
  check(sessionId: string): SessionLookup {
    if (!SESSION_ID.test(sessionId)) return { found: false, status: 400, detail: "Missing or malformed session_id" };
    if (!this.sessions.has(sessionId)) return { found: false, status: 404, detail: "Session not found" };
    return { found: true };
  }

  /** Dispatches one message of a checked session and writes its reply, if any, on the session's stream. */
  async deliver(sessionId: string, body: string): Promise<void> {
    const session = this.sessions.get(sessionId);
    if (!session) return;
    const outcome = await this.dispatcher.dispatchText(body, session.caller);
    if (outcome.response !== undefined) write(session.response, `event: message\ndata: ${outcome.response}\n\n`);
  }

  /** Ends every stream (server shutdown). */
  closeAll(): void {
    clearInterval(this.keepalive);
    for (const session of this.sessions.values()) session.response.end();
    this.sessions.clear();
  }

  private writeAll(frame: string): void {
    for (const session of this.sessions.values()) write(session.response, frame);
  }
}

function write(response: ServerResponse, frame: string): void {
  if (response.writableEnded || response.destroyed) return;
  if (response.writableLength > MAX_UNREAD_BYTES) response.destroy();
  else response.write(frame);
}
