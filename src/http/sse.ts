// The one server-sent event writer: every stream (workspace events, run events, /agui, legacy MCP SSE) goes out
// through it. The response head is written by hand on the reply's socket (with the headers other hooks set, such as
// CORS), then frames until either side closes: the body ends when the connection does, so a stream holds only its
// socket, not a response object with chunked encoding on top. A client that falls behind is dropped, never buffered
// for without limit.
import type { Socket } from "node:net";
import type { FastifyReply } from "fastify";
import { logRequest } from "./request-log.ts";

/** The keep-alive comments in use: the agent-UI and run streams' first, the event and MCP streams' second. */
export type KeepAliveComment = ": keep-alive\n\n" | ": keepalive\n\n";

/** Unsent bytes after which a client that stopped reading is dropped, unless its stream says otherwise. */
export const DEFAULT_MAX_UNREAD_BYTES = 1024 * 1024;

export interface SseFrame {
  /** `id:`, what the client sends back as `Last-Event-ID`. */
  id?: number | string | undefined;
  /** `event:`, the event's name; without it the client sees a `message`. */
  event?: string | undefined;
  /** The payload; each of its lines becomes a `data:` line. */
  data: string;
}

/** One frame: `id:`, `event:`, then one `data:` line per line of `data` (which SSE joins back with `\n`). */
export function sseFrame(frame: SseFrame): string {
  let text = frame.id === undefined ? "" : `id: ${frame.id}\n`;
  if (frame.event !== undefined) text += `event: ${frame.event}\n`;
  // JSON, the common case, holds no line break: no split needed.
  if (!/[\r\n]/.test(frame.data)) return `${text}data: ${frame.data}\n\n`;
  for (const line of frame.data.split(/\r\n|\r|\n/)) text += `data: ${line}\n`;
  return `${text}\n`;
}

export interface SseOptions {
  /** Frames sent with the head, in the same write. */
  firstFrames?: string;
  /** Unsent bytes after which `send` drops the client (default 1 MiB). */
  maxUnreadBytes?: number;
}

/** An open stream on a client's socket. */
export class SseStream {
  private wroteSinceTick = false;

  private constructor(
    private readonly socket: Socket,
    private readonly maxUnreadBytes: number,
    private readonly reply: FastifyReply,
  ) {}

  /** Takes over the reply's socket and sends the head of a `text/event-stream`; undefined if the client already left. */
  static open(reply: FastifyReply, options: SseOptions = {}): SseStream | undefined {
    let head = "HTTP/1.1 200 OK\r\n";
    for (const [name, value] of Object.entries(reply.getHeaders())) {
      if (value !== undefined) head += `${name}: ${Array.isArray(value) ? value.join(", ") : value}\r\n`;
    }
    head +=
      "content-type: text/event-stream\r\ncache-control: no-cache\r\nx-accel-buffering: no\r\nconnection: close\r\n\r\n";
    reply.hijack();
    const socket = reply.raw.socket;
    if (!socket || socket.destroyed) return undefined;
    // A reply taken over this way never "finishes", so the request's one log line is written when the stream ends.
    socket.once("close", () => logRequest(reply.request, reply, "event stream closed"));
    socket.setNoDelay(true);
    socket.write(head + (options.firstFrames ?? ""));
    return new SseStream(socket, options.maxUnreadBytes ?? DEFAULT_MAX_UNREAD_BYTES, reply);
  }

  /** The client left, or the stream was ended or dropped. */
  get closed(): boolean {
    return this.socket.destroyed || this.socket.writableEnded;
  }

  /** Bytes written but not yet taken by the client. */
  get unsentBytes(): number {
    return this.socket.writableLength;
  }

  /**
   * Writes `chunk` now, whatever the client has read so far: a client with more than the bound still unsent is
   * dropped instead. False when the stream is closed (or was just dropped).
   */
  send(chunk: string | Buffer): boolean {
    if (this.closed) return false;
    if (this.socket.writableLength > this.maxUnreadBytes) {
      this.drop();
      return false;
    }
    this.wroteSinceTick = true;
    this.socket.write(chunk);
    return true;
  }

  /** Writes `chunk` and resolves once the client has taken it (or left): for writers that go at the client's pace. */
  async sendPaced(chunk: string | Buffer): Promise<void> {
    if (this.closed) return;
    this.wroteSinceTick = true;
    if (this.socket.write(chunk)) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.socket.off("drain", done);
        this.socket.off("close", done);
        resolve();
      };
      this.socket.once("drain", done);
      this.socket.once("close", done);
    });
  }

  /** A comment, when nothing was sent since the last tick and the client has read everything. */
  keepAlive(comment: KeepAliveComment): void {
    if (!this.wroteSinceTick && !this.closed && this.socket.writableLength === 0) this.socket.write(comment);
    this.wroteSinceTick = false;
  }

  /** `listener` runs once, when the connection closes (at once if it already has). */
  onClose(listener: () => void): void {
    if (this.socket.destroyed) queueMicrotask(listener);
    else this.socket.once("close", listener);
  }

  /** Ends the stream after what was sent. */
  end(): void {
    // Logged now: on a shutdown the process may exit before the socket reports its close.
    logRequest(this.reply.request, this.reply, "event stream closed");
    if (!this.closed) this.socket.end();
  }

  /** Cuts the connection now (a client that fell behind, access lost). */
  drop(): void {
    logRequest(this.reply.request, this.reply, "event stream closed");
    if (!this.socket.destroyed) this.socket.destroy();
  }
}

/** One timer for the keep-alive comments of many streams. */
export class KeepAlives {
  private readonly streams = new Set<SseStream>();
  private readonly timer: NodeJS.Timeout;

  constructor(intervalMs: number, comment: KeepAliveComment) {
    this.timer = setInterval(() => {
      for (const stream of this.streams) stream.keepAlive(comment);
    }, intervalMs).unref();
  }

  /** Keeps `stream` warm until it closes. */
  add(stream: SseStream): void {
    this.streams.add(stream);
    stream.onClose(() => this.streams.delete(stream));
  }

  close(): void {
    clearInterval(this.timer);
    this.streams.clear();
  }
}
