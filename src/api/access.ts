// Route guards for the platform API, run in onRequest so the documented check order holds:
// 401 (credentials) → 403 (membership and role) → 422 (validation) → handler.
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Authenticator } from "../auth/authenticator.ts";
import { hasRole, type Membership, type Role } from "../auth/membership.ts";
import type { Principal } from "../auth/principal.ts";
import type { ActorType } from "../db/enums.ts";
import { forbidden } from "../http/errors.ts";

/** Who did something, as recorded in activity and creator fields. */
export interface Actor {
  type: ActorType;
  id: string;
}

declare module "fastify" {
  interface FastifyRequest {
    principal: Principal;
    membership: Membership;
    /**
     * The workspace's issue list version, read with the membership (one query instead of two on every workspace
     * route): issue list pages are cached under it (issues/list.ts), and it is read before any page is.
     */
    issueListVersion: number;
  }
  interface FastifyContextConfig {
    /** Least workspace role a route needs (workspace-scoped routes only); default member. */
    role?: Role;
  }
}

/** A task token's caller acts as its agent; everyone else as the member they are. */
export const actorOf = (request: FastifyRequest): Actor =>
  request.principal.agent
    ? { type: "agent", id: request.principal.agent.id }
    : { type: "member", id: request.principal.user.id };

/**
 * For routes that change who holds access (API keys, members, workspaces themselves): a leaked key must not be able
 * to grant access that outlives its own revocation. A person signs in for these.
 */
export async function refuseApiKeyCallers(request: FastifyRequest): Promise<void> {
  if (request.principal.apiKey) throw forbidden("This needs a signed-in user, not an API key");
  if (request.principal.agent) throw forbidden("This needs a signed-in user, not a task token");
}

/** Every route registered inside `app` needs a valid credential. */
export function requireAuthentication(app: FastifyInstance, authenticator: Authenticator): void {
  app.decorateRequest("principal", undefined as unknown as Principal);
  app.addHook("onRequest", async (request) => {
    request.principal = await authenticator.require(request.headers);
  });
}

/**
 * Every route registered inside `app` (prefixed with `/workspaces/:ws_id`) needs a valid credential (401) and
 * membership with the route's role (403), both read in one query with the workspace's issue list version.
 */
export function requireWorkspaceAccess(app: FastifyInstance, authenticator: Authenticator): void {
  app.decorateRequest("principal", undefined as unknown as Principal);
  app.decorateRequest("membership", undefined as unknown as Membership);
  app.decorateRequest("issueListVersion", 0);
  app.addHook("onRequest", async (request) => {
    const workspaceId = (request.params as { ws_id?: string }).ws_id ?? "";
    const access = await authenticator.requireInWorkspace(request.headers, workspaceId);
    request.principal = access.principal;
    request.membership = access.membership;
    request.issueListVersion = access.issueListVersion;
    if (!hasRole(request.membership.role, request.routeOptions.config.role ?? "member")) throw forbidden();
  });
}
