// The DNS-rebinding guard shared by the tool-protocol and agent-UI endpoints: both run tools on the user's machine.
import type { IncomingHttpHeaders, Server } from "node:http";
import type { FastifyInstance } from "fastify";
import { forbidden } from "./errors.ts";

const NOT_LOOPBACK = "Host or Origin is not a loopback name (DNS-rebinding guard)";

/**
 * Every route of `scope` refuses, with 403, requests whose Host or Origin is not a loopback name while the server
 * listens on loopback only. Read from the listening socket, not the config: `serve --host` may bind elsewhere.
 */
export function guardLoopback(scope: FastifyInstance): void {
  scope.addHook("onRequest", (request, _reply, done) => {
    if (!listensOnLoopbackOnly(scope.server)) return done();
    try {
      checkLoopbackRequest(request.headers);
    } catch (error) {
      return done(error as Error);
    }
    done();
  });
}

const loopbackServers = new WeakMap<Server, boolean>();

/** Whether the listening socket is loopback-only; asked of the socket once, after it listens. */
export function listensOnLoopbackOnly(server: Server): boolean {
  let known = loopbackServers.get(server);
  if (known === undefined) {
    const address = server.address();
    if (address === null) return false;
    // Loopback only: 127.x or ::1; false for 0.0.0.0, :: or a public address (a string address is a pipe).
    known = typeof address !== "string" && (address.address === "::1" || address.address.startsWith("127."));
    loopbackServers.set(server, known);
  }
  return known;
}

function isLoopbackName(hostname: string): boolean {
  const name = hostname.toLowerCase();
  return (
    name === "localhost" ||
    name.endsWith(".localhost") ||
    name === "::1" ||
    name === "[::1]" ||
    /^127(\.\d{1,3}){3}$/.test(name)
  );
}

/** The host part of a Host header (`name:port`, `[v6]:port`). */
function hostOf(hostHeader: string): string {
  if (hostHeader.startsWith("[")) return hostHeader.slice(0, hostHeader.indexOf("]") + 1);
  const colon = hostHeader.indexOf(":");
  return colon === -1 ? hostHeader : hostHeader.slice(0, colon);
}

export function originIsLoopback(origin: string): boolean {
  try {
    return isLoopbackName(new URL(origin).hostname);
  } catch {
    return false;
  }
}

/**
 * A server bound to loopback only serves pages and clients that address it by a loopback name: a web page that
 * rebinds its own DNS name to 127.0.0.1 still sends its own name as Host and Origin, so it is refused with 403.
 */
function checkLoopbackRequest(headers: IncomingHttpHeaders): void {
  const host = headers.host;
  if (host !== undefined && !isLoopbackName(hostOf(host))) throw forbidden(NOT_LOOPBACK);
  const origin = headers.origin;
  if (origin !== undefined && !originIsLoopback(origin)) throw forbidden(NOT_LOOPBACK);
}
