// Workspace membership and roles: who may act inside a workspace. Shared by the platform API's guards, the tool
// protocol and the agent-UI endpoint.
import type { MemberRole } from "../db/enums.ts";
import type { Db } from "../db/index.ts";
import { isId } from "../db/values.ts";
import { forbidden } from "../http/errors.ts";
import { boundWorkspace, type Principal } from "./principal.ts";

export type Role = MemberRole;
const RANK: Record<Role, number> = { member: 1, admin: 2, owner: 3 };

export const hasRole = (role: Role, atLeast: Role): boolean => RANK[role] >= RANK[atLeast];

export interface Membership {
  workspaceId: string;
  userId: string;
  role: Role;
}

/** The caller's membership of the workspace; 403 for a non-member, an unknown workspace or another workspace's key. */
export async function loadMembership(db: Db, principal: Principal, workspaceId: string): Promise<Membership> {
  const bound = boundWorkspace(principal);
  if (bound !== undefined && bound !== workspaceId) throw forbidden();
  if (principal.agent) return { workspaceId, userId: principal.user.id, role: "member" };
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
