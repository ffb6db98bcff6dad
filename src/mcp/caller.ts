// Who is calling the tool protocol, and whether the request may reach it at all (DNS-rebinding guard).
import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { AppContext } from "../context.ts";
import { forbidden, unauthorized } from "../http/errors.ts";
import type { ToolContext } from "../tools/registry.ts";

export const MISSING_CREDENTIAL = "Missing credential: send X-API-Key or Authorization: Bearer <API key>";
export const NOT_LOOPBACK = "Host or Origin is not a loopback name (DNS-rebinding guard)";

const ANONYMOUS: ToolContext = Object.freeze({});

/**
 * The caller's tool context: a workspace API key adds that workspace (and acts as its creator); a JWT names the user
 * only; no credential is anonymous (custom tools only), allowed in PLATFORM_ENV=dev only. A bad credential is a 401.
 */
export async function resolveCaller(ctx: AppContext, headers: IncomingHttpHeaders): Promise<ToolContext> {
  if (headers["x-api-key"] === undefined && headers.authorization === undefined) {
    if (!ctx.config.isDev) throw unauthorized(MISSING_CREDENTIAL);
    return ANONYMOUS;
  }
  const principal = await ctx.authenticator.authenticate(headers);
  if (!principal) {
    if (!ctx.config.isDev) throw unauthorized(MISSING_CREDENTIAL);
    return ANONYMOUS;
  }
  return principal.apiKey
    ? { userId: principal.user.id, workspaceId: principal.apiKey.workspaceId }
    : { userId: principal.user.id };
}

/**
 * The caller of one HTTP request, whose `signal` aborts if the client goes away before the answer is sent. The
 * controller is made only when a tool reads the signal, so calls that never look at it pay nothing.
 */
class RequestCaller implements ToolContext {
  readonly workspaceId?: string;
  readonly userId?: string;
  private controller?: AbortController;

  constructor(
    caller: ToolContext,
    private readonly response: ServerResponse,
  ) {
    if (caller.workspaceId !== undefined) this.workspaceId = caller.workspaceId;
    if (caller.userId !== undefined) this.userId = caller.userId;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      const controller = new AbortController();
      const response = this.response;
      const abortIfUnanswered = () => {
        if (!response.writableFinished) controller.abort();
      };
      if (response.destroyed) abortIfUnanswered();
      else response.once("close", abortIfUnanswered);
      this.controller = controller;
    }
    return this.controller.signal;
  }
}

export const abortOnDisconnect = (caller: ToolContext, response: ServerResponse): ToolContext =>
  new RequestCaller(caller, response);

export function isLoopbackName(hostname: string): boolean {
  const name = hostname.toLowerCase();
  return (
    name === "localhost" ||
    name.endsWith(".localhost") ||
    name === "::1" ||
    name === "[::1]" ||
    /^127(\.\d{1,3}){3}$/.test(name)
  );
}

/** Whether the server listens on a loopback address only (127.x, ::1); false for 0.0.0.0, :: or a public address. */
export function isLoopbackAddress(address: AddressInfo | string | null): boolean {
  if (address === null || typeof address === "string") return false;
  return address.address === "::1" || address.address.startsWith("127.");
}

/** The host part of a Host header (`name:port`, `[v6]:port`). */
function hostOf(hostHeader: string): string {
  if (hostHeader.startsWith("[")) return hostHeader.slice(0, hostHeader.indexOf("]") + 1);
  const colon = hostHeader.indexOf(":");
  return colon === -1 ? hostHeader : hostHeader.slice(0, colon);
}

function originIsLoopback(origin: string): boolean {
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
export function checkLoopbackRequest(headers: IncomingHttpHeaders): void {
  const host = headers.host;
  if (host !== undefined && !isLoopbackName(hostOf(host))) throw forbidden(NOT_LOOPBACK);
  const origin = headers.origin;
  if (origin !== undefined && !originIsLoopback(origin)) throw forbidden(NOT_LOOPBACK);
}
