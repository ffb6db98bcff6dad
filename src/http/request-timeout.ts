// A client that sends its request slowly (a body a byte every few seconds) holds a socket and a parser for as long
// as it likes. Node's `requestTimeout` answers 408 for a request whose *head* is not in by then; a body still
// arriving once the head was read is not covered there (measured on Node 20), so a body gets its own timer here.
// Neither outlives the request's arrival: a long-lived response (an event stream, a WebSocket after its upgrade) is
// never cut.
import type { ServerOptions } from "node:http";
import { PassThrough } from "node:stream";
import type { FastifyInstance } from "fastify";
import { HttpError } from "./errors.ts";

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
  // A callback hook: no promise per request on the hot path.
  app.addHook("preParsing", (request, reply, payload, done) => {
    // Most bodies arrive with their head: nothing left to wait for, nothing to wrap.
    if (request.raw.complete) return done(null, payload);
    const bounded = new PassThrough();
    // Nothing reads the body of a GET, or of a request refused before parsing (415, 413): its failure is nobody's.
    bounded.on("error", () => {});
    const timer = setTimeout(() => {
      payload.unpipe(bounded);
      reply.header("connection", "close");
      bounded.destroy(new HttpError(408, "Request body not received in time"));
    }, timeoutMs);
    const stop = () => clearTimeout(timer);
    payload.once("end", stop);
    payload.once("close", stop);
    reply.raw.once("close", stop);
    payload.once("error", (error) => {
      stop();
      bounded.destroy(error);
    });
    done(null, payload.pipe(bounded));
  });
}
