// A client that sends its request slowly (a head a line at a time, a body a byte every few seconds) holds a socket
// and a parser for as long as it likes. Node answers 408 for a request not received in full within its
// `requestTimeout`, body included, but only when the option is given to the server's constructor: Fastify sets it on
// the server afterwards, where Node 20 no longer applies it to bodies (measured). So it is given to both. Nothing is
// done per request, and nothing outlives the request's arrival: a long-lived response (an event stream, a WebSocket
// after its upgrade) is never cut.
import type { ServerOptions } from "node:http";

/**
 * Fastify options under which Node answers 408 when a request (head and body) is not in within `timeoutMs`
 * (errors.ts `clientError` words it as `{detail}` and closes the socket).
 */
export function requestTimeoutOptions(timeoutMs: number): {
  requestTimeout: number;
  http: ServerOptions;
} {
  return {
    requestTimeout: timeoutMs,
    http: {
      requestTimeout: timeoutMs,
      // Node looks for overdue requests only this often (30 s by default), so it bounds how late the 408 comes.
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(timeoutMs / 4))),
    },
  };
}
