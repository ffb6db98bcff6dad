// Who is calling the tool protocol, and whether a message posted to a session comes from whoever opened it.
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import type { Authenticator } from "../auth/authenticator.ts";
import { loadMembership } from "../auth/membership.ts";
import type { Principal } from "../auth/principal.ts";
import type { Db } from "../db/index.ts";
import { HttpError, unauthorized } from "../http/errors.ts";
import type { ToolContext } from "../tools/registry.ts";

export const MISSING_CREDENTIAL = "Missing credential: send X-API-Key or Authorization: Bearer <API key>";
const NOT_THE_SESSION_OWNER = "This session was opened with another credential";
const KEY_OF_ANOTHER_WORKSPACE = "This API key belongs to another workspace";

const ANONYMOUS_OWNER = "anonymous";
/** Owners of sessions opened with a task token: their user is the task's agent. */
export const TASK_OWNER_PREFIX = "task:";

/** What telling callers apart needs. */
export interface CallerChecks {
  authenticator: Authenticator;
  db: Db;
  /** In PLATFORM_ENV=dev a caller without a credential is anonymous (custom tools only); elsewhere a 401. */
  isDev: boolean;
}

/** The request parts that say who calls: credentials and the workspace a login token chooses. */
interface CallerRequest {
  headers: IncomingHttpHeaders;
  query: { workspace_id?: string };
}

export interface Caller {
  /** What the registry shows and runs for this caller. */
  scope: ToolContext;
  /** The principal, as a session compares it: anonymous, one API key, or one user in one (or no) workspace. */
  owner: string;
  /** A hash of the credential sent, to tell whether a later post carries the very same one. */
  credentialHash?: string;
}

/**
 * The caller: a workspace API key adds that workspace (and acts as its creator); a login token names the user and,
 * with `X-Workspace-Id` or `?workspace_id=`, a workspace the user belongs to (403 otherwise); no credential is
 * anonymous (custom tools only), allowed in PLATFORM_ENV=dev only. A bad credential is a 401.
 */
export async function resolveCaller(checks: CallerChecks, request: CallerRequest): Promise<Caller> {
  const principal = await checks.authenticator.authenticate(request.headers);
  return callerOf(checks, principal, request, workspaceChoice(request));
}

/**
 * Checks one message posted to an open session: its own credential must hold and name the principal that opened
 * the session (a missing or bad one is 401 whoever opened it; another principal is 403). `endSession` is called
 * when the opening credential itself no longer holds (revoked key, removed member, expired token).
 */
export async function checkSessionPost(
  checks: CallerChecks,
  request: CallerRequest,
  opener: Caller,
  endSession: () => void,
): Promise<void> {
  const sameCredential = sameHash(opener.credentialHash, credentialHash(request));
  let caller: Caller;
  try {
    const principal = await checks.authenticator.authenticate(request.headers);
    if (!principal && opener.owner !== ANONYMOUS_OWNER) throw unauthorized(MISSING_CREDENTIAL);
    caller = await callerOf(checks, principal, request, workspaceChoice(request) ?? opener.scope.workspaceId);
  } catch (error) {
    if (sameCredential && error instanceof HttpError) endSession();
    throw error;
  }
  if (caller.owner !== opener.owner) throw new HttpError(403, NOT_THE_SESSION_OWNER);
}

async function callerOf(
  checks: CallerChecks,
  principal: Principal | undefined,
  request: CallerRequest,
  workspaceId: string | undefined,
): Promise<Caller> {
  if (!principal) {
    if (!checks.isDev || workspaceId !== undefined) throw unauthorized(MISSING_CREDENTIAL);
    return { scope: {}, owner: ANONYMOUS_OWNER };
  }
  const caller = await principalCaller(checks, principal, workspaceId);
  const hash = credentialHash(request);
  return hash === undefined ? caller : { ...caller, credentialHash: hash };
}

async function principalCaller(
  checks: CallerChecks,
  principal: Principal,
  workspaceId: string | undefined,
): Promise<Caller> {
  const userId = principal.user.id;
  if (principal.agent) {
    // A task token: the agent's tools in the agent's workspace, acting as the agent.
    const { id: agentId, workspaceId: bound, taskId } = principal.agent;
    if (workspaceId !== undefined && workspaceId !== bound) throw new HttpError(403, KEY_OF_ANOTHER_WORKSPACE);
    return {
      scope: { workspaceId: bound, userId: agentId, agentId, taskId },
      owner: `${TASK_OWNER_PREFIX}${taskId}`,
    };
  }
  if (principal.apiKey) {
    if (workspaceId !== undefined && workspaceId !== principal.apiKey.workspaceId) {
      throw new HttpError(403, KEY_OF_ANOTHER_WORKSPACE);
    }
    return { scope: { userId, workspaceId: principal.apiKey.workspaceId }, owner: `key:${principal.apiKey.id}` };
  }
  if (workspaceId === undefined) return { scope: { userId }, owner: `user:${userId}` };
  await loadMembership(checks.db, principal, workspaceId);
  return { scope: { userId, workspaceId }, owner: `user:${userId}@${workspaceId}` };
}

function workspaceChoice(request: CallerRequest): string | undefined {
  const header = request.headers["x-workspace-id"];
  const chosen = typeof header === "string" && header !== "" ? header : request.query.workspace_id;
  return chosen === "" ? undefined : chosen;
}

/** SHA-256 of the credential the request carries (API key or bearer token), hex. */
function credentialHash(request: CallerRequest): string | undefined {
  const apiKey = request.headers["x-api-key"];
  const credential =
    typeof apiKey === "string" && apiKey !== "" ? apiKey.trim() : request.headers.authorization?.trim();
  if (!credential) return undefined;
  return createHash("sha256").update(credential).digest("hex");
}

/** Constant-time comparison of two credential hashes. */
function sameHash(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || b === undefined || a.length !== b.length) return false;
  return timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/**
 * The caller of one HTTP request, whose `signal` aborts if the client goes away before the answer is sent. The
 * controller is made only when a tool reads the signal, so calls that never look at it pay nothing.
 */
class RequestCaller implements ToolContext {
  readonly workspaceId?: string;
  readonly userId?: string;
  readonly agentId?: string;
  readonly taskId?: string;
  private controller?: AbortController;

  constructor(
    caller: ToolContext,
    private readonly response: ServerResponse,
  ) {
    if (caller.workspaceId !== undefined) this.workspaceId = caller.workspaceId;
    if (caller.userId !== undefined) this.userId = caller.userId;
    if (caller.agentId !== undefined) this.agentId = caller.agentId;
    if (caller.taskId !== undefined) this.taskId = caller.taskId;
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
