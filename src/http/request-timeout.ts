// A client that sends its request slowly (a body a byte every few seconds) holds a socket and a parser for as long
// as it likes. Node's `requestTimeout` answers 408 for a request whose *head* is not in by then; a body still
// arriving once the head was read is not covered there (measured on Node 20), so a body gets its own timer here.
// Neither outlives the request's arrival: a long-lived response (an event stream, a WebSocket after its upgrade) is
// never cut.
import type { ServerOptions } from "node:http";
import type { FastifyInstance } from "fastify";
import { HttpError } from "./errors.ts";

const BODY_TOO_SLOW = "Request body not received in time";

/** Fastify options under which Node answers 408 when a request head is not in within `timeoutMs` (errors.ts `clientError` words it as `{detail}` and closes the socket). */
export function requestTimeoutOptions(timeoutMs: number): {
  requestTimeout: number;
  http: ServerOptions;
} {
  return {
    requestTimeout: timeoutMs,
    // Node looks for overdue requests only this often (30 s by default), so it bounds how late the 408 comes.
    http: { connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(timeoutMs / 4))) },
  };
}

/** A body not received in full within `timeoutMs` of its head fails with 408 `{detail}`, and the connection closes. */
export function limitBodyTime(app: FastifyInstance, timeoutMs: number): void {
  // A callback hook and no stream wrapped around the body: nothing per request but one timer.
  app.addHook("preParsing", (request, reply, payload, done) => {
    // The head is handled before the rest of its packet is read, so even a small body is usually still to come.
    if (request.raw.complete) return done(null, payload);
    const timer = setTimeout(() => {
      payload.removeListener("end", stop);
      if (request.raw.complete || request.raw.destroyed || reply.sent) return;
      reply.header("connection", "close");
      // Fastify's body reader listens for the body's errors and answers with their status. Nothing listens to the
      // body of a GET, or of a request refused before parsing (415, 413): nobody is waiting for it then.
      if (payload.listenerCount("error") > 0) payload.emit("error", new HttpError(408, BODY_TOO_SLOW));
    }, timeoutMs);
    const stop = () => clearTimeout(timer);
    payload.once("end", stop);
    done(null, payload);
  });
}
