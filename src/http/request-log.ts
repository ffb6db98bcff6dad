// One structured log line per request, after it completes; headers (and so credentials) are never logged.
// Fastify's onResponse hook covers ordinary replies and those taken over and ended through the response object; a
// stream written straight on the socket never "finishes", so it logs itself when the socket closes. Either may come
// first, so a request is logged once, whichever does.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";

declare module "fastify" {
  interface FastifyContextConfig {
    /** The URL holds a secret (a webhook token): the log line shows the route's pattern instead. */
    secretUrl?: boolean;
  }
}

const logged = new WeakSet<FastifyRequest>();

/** Pino's check, which Fastify's logger type does not name: at LOG_LEVEL=warn a request costs no line to build. */
const infoEnabled = (request: FastifyRequest): boolean =>
  (request.log as { isLevelEnabled?(level: string): boolean }).isLevelEnabled?.("info") !== false;

export function logRequest(request: FastifyRequest, reply: FastifyReply, note?: string): void {
  if (!infoEnabled(request) || logged.has(request)) return;
  logged.add(request);
  const elapsed = reply.elapsedTime;
  request.log.info(
    {
      method: request.method,
      url: request.routeOptions.config?.secretUrl ? request.routeOptions.url : request.url.split("?")[0],
      statusCode: reply.statusCode,
      ...(Number.isFinite(elapsed) && { ms: Math.round(elapsed * 10) / 10 }),
    },
    note ? `request (${note})` : "request",
  );
}

export function logOneLinePerRequest(app: FastifyInstance): void {
  app.addHook("onResponse", (request, reply, done) => {
    logRequest(request, reply);
    done();
  });
}
