// A client that sends its request slowly (a body a byte every few seconds) holds a socket and a parser for as long
// as it likes. Node's `requestTimeout` covers a request until it is fully received, never after: a long-lived
// response (an event stream, a WebSocket after its upgrade) is not cut.
import type { ServerOptions } from "node:http";
import type { Socket } from "node:net";

const CLIENT_ERRORS: Record<string, { status: number; reason: string; detail: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, reason: "Request Timeout", detail: "Request not received in time" },
  HPE_HEADER_OVERFLOW: { status: 431, reason: "Request Header Fields Too Large", detail: "Request headers too large" },
};
const MALFORMED = { status: 400, reason: "Bad Request", detail: "Malformed request" };

/** Fastify options that answer 408 `{detail}` and close the socket when a request is not in within `timeoutMs`. */
export function requestTimeoutOptions(timeoutMs: number): {
  requestTimeout: number;
  http: ServerOptions;
  clientErrorHandler: (error: Error & { code?: string }, socket: Socket) => void;
} {
  return {
    requestTimeout: timeoutMs,
    // Node looks for overdue requests only this often (30 s by default), so it bounds how late the 408 comes.
    http: { connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(timeoutMs / 4))) },
    clientErrorHandler: answerClientError,
  };
}

/** Errors before a request exists (no route, no reply): answered on the raw socket, which is then closed. */
function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const { status, reason, detail } = CLIENT_ERRORS[error.code ?? ""] ?? MALFORMED;
  const body = JSON.stringify({ detail });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
