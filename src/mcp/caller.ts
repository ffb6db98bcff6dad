// Who is calling the tool protocol.
import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import type { Authenticator } from "../auth/authenticator.ts";
import { unauthorized } from "../http/errors.ts";
import type { ToolContext } from "../tools/registry.ts";

const MISSING_CREDENTIAL = "Missing credential: send X-API-Key or Authorization: Bearer <API key>";

const ANONYMOUS: ToolContext = Object.freeze({});

/**
 * The caller's tool context: a workspace API key adds that workspace (and acts as its creator); a JWT names the user
 * only; no credential is anonymous (custom tools only), allowed in PLATFORM_ENV=dev only. A bad credential is a 401.
 */
export async function resolveCaller(
  authenticator: Authenticator,
  isDev: boolean,
  headers: IncomingHttpHeaders,
): Promise<ToolContext> {
  const principal = await authenticator.authenticate(headers);
  if (principal) {
    return principal.apiKey
      ? { userId: principal.user.id, workspaceId: principal.apiKey.workspaceId }
      : { userId: principal.user.id };
  }
  if (!isDev) throw unauthorized(MISSING_CREDENTIAL);
  return ANONYMOUS;
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
