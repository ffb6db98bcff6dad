// Route guards for the platform API, run in onRequest so the documented check order holds:
// 401 (credentials) → 403 (membership and role) → 422 (validation) → handler.
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Db } from "../db/index.ts";
import { forbidden } from "../http/errors.ts";
import type { Authenticator, Principal } from "./auth/principal.ts";
import { isId } from "./fields.ts";

export type Role = "owner" | "admin" | "member";
const RANK: Record<Role, number> = { member: 1, admin: 2, owner: 3 };

export const hasRole = (role: Role, atLeast: Role): boolean => RANK[role] >= RANK[atLeast];

export interface Membership {
  workspaceId: string;
  userId: string;
  role: Role;
}

/** Who did something, as recorded in activity and creator fields. */
export interface Actor {
  type: "member" | "agent";
  id: string;
}

declare module "fastify" {
  interface FastifyRequest {
    principal: Principal;
    membership: Membership;
  }
  interface FastifyContextConfig {
    /** Least workspace role a route needs (workspace-scoped routes only); default member. */
    role?: Role;
  }
}

export const actorOf = (request: FastifyRequest): Actor => ({ type: "member", id: request.principal.user.id });

/**
 * For routes that change who holds access (API keys, members, workspaces themselves): a leaked key must not be able
 * to grant access that outlives its own revocation. A person signs in for these.
 */
export async function refuseApiKeyCallers(request: FastifyRequest): Promise<void> {
  if (request.principal.apiKey) throw forbidden("This needs a signed-in user, not an API key");
}

/** Every route registered inside `app` needs a valid credential. */
export function requireAuthentication(app: FastifyInstance, authenticator: Authenticator): void {
  app.decorateRequest("principal", undefined as unknown as Principal);
  app.addHook("onRequest", async (request) => {
    request.principal = await authenticator.require(request.headers);
  });
}

/** Every route registered inside `app` (prefixed with `/workspaces/:ws_id`) needs membership with the route's role. */
export function requireWorkspaceRole(app: FastifyInstance, db: Db): void {
  app.decorateRequest("membership", undefined as unknown as Membership);
  app.addHook("onRequest", async (request) => {
    const workspaceId = (request.params as { ws_id?: string }).ws_id ?? "";
    request.membership = await loadMembership(db, request.principal, workspaceId);
    if (!hasRole(request.membership.role, request.routeOptions.config.role ?? "member")) throw forbidden();
  });
}

export async function loadMembership(db: Db, principal: Principal, workspaceId: string): Promise<Membership> {
  if (principal.apiKey && principal.apiKey.workspaceId !== workspaceId) throw forbidden();
  // Not an id at all (e.g. a NUL byte, which PostgreSQL refuses): no workspace of which anyone is a member.
  if (!isId(workspaceId)) throw forbidden();
  const member = await db
    .selectFrom("members")
    .select("role")
    .where("workspace_id", "=", workspaceId)
    .where("user_id", "=", principal.user.id)
    .executeTakeFirst();
  if (!member) throw forbidden();
  return { workspaceId, userId: principal.user.id, role: member.role };
}
