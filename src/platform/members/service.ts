import type { Actor } from "../../api/access.ts";
import { uniqueOr409 } from "../../api/unique.ts";
import { inWorkspace } from "../../api/workspace-transaction.ts";
import { hasRole, type Membership, type Role } from "../../auth/membership.ts";
import type { Db } from "../../db/index.ts";
import { isPostgres } from "../../db/index.ts";
import { isId, newId, now } from "../../db/values.ts";
import { insertCreated, recordActivity, updateRecorded } from "../../events/activity.ts";
import { conflict, forbidden, notFound } from "../../http/errors.ts";
import { emailKey } from "../accounts/users.ts";

interface Member {
  id: string;
  workspace_id: string;
  user_id: string;
  role: Role;
  created_at: string;
  user: { id: string; name: string; email: string };
}

const memberQuery = (db: Db) =>
  db
    .selectFrom("members")
    .innerJoin("users", "users.id", "members.user_id")
    .select([
      "members.id",
      "members.workspace_id",
      "members.user_id",
      "members.role",
      "members.created_at",
      "users.name as user_name",
      "users.email as user_email",
    ]);

type MemberRow = Awaited<ReturnType<ReturnType<typeof memberQuery>["executeTakeFirstOrThrow"]>>;

const toMember = ({ user_name, user_email, ...row }: MemberRow): Member => ({
  ...row,
  user: { id: row.user_id, name: user_name, email: user_email },
});

async function getMember(db: Db, workspaceId: string, userId: string): Promise<Member> {
  const row = isId(userId)
    ? await memberQuery(db)
        .where("members.workspace_id", "=", workspaceId)
        .where("members.user_id", "=", userId)
        .executeTakeFirst()
    : undefined;
  if (!row) throw notFound("Member");
  return toMember(row);
}

export async function listMembers(db: Db, workspaceId: string, page: { limit: number; offset: number }) {
  const rows = await memberQuery(db)
    .where("members.workspace_id", "=", workspaceId)
    .orderBy("members.created_at")
    .orderBy("members.id")
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map(toMember);
}

const ONLY_OWNERS = "Only owners can grant or change the admin and owner roles";

export async function addMember(
  db: Db,
  by: Membership,
  input: { user_id?: string | undefined; email?: string | undefined; role: Role },
  actor: Actor,
): Promise<Member> {
  if (input.role !== "member" && by.role !== "owner") throw forbidden(ONLY_OWNERS);
  let users = db.selectFrom("users").select(["id", "name"]);
  users =
    input.user_id !== undefined
      ? users.where("id", "=", input.user_id)
      : users.where("email_key", "=", emailKey(input.email ?? ""));
  const user = await users.executeTakeFirst();
  if (!user) throw notFound("User");
  const id = newId();
  await uniqueOr409("User is already a member of this workspace", () =>
    inWorkspace(db, by.workspaceId, async (trx) => {
      const row = { id, workspace_id: by.workspaceId, user_id: user.id, role: input.role, created_at: now() };
      await insertCreated(trx, "members", row, {
        workspaceId: by.workspaceId,
        entityType: "member",
        actor,
        action: "member.added",
        details: { user_id: user.id, user_name: user.name, role: input.role },
      });
    }),
  );
  return getMember(db, by.workspaceId, user.id);
}

/**
 * Role changes and removals of one workspace take turns: the workspace row is locked first (SQLite runs one
 * transaction at a time anyway), then the acting member's role is read again, so two owners leaving or demoting each
 * other at once cannot both count the other as the remaining owner. Returns the actor's role as of now. The lock
 * lets the workspace's other writers be (they hold its row's key share: db/lock-order.ts), and waits for its deletion.
 */
async function lockMembership(trx: Db, by: Membership): Promise<Role> {
  const workspace = await trx
    .selectFrom("workspaces")
    .select("id")
    .where("id", "=", by.workspaceId)
    .$if(isPostgres(trx), (query) => query.forNoKeyUpdate())
    .executeTakeFirst();
  if (!workspace) throw notFound("Workspace");
  const current = await trx
    .selectFrom("members")
    .select("role")
    .where("workspace_id", "=", by.workspaceId)
    .where("user_id", "=", by.userId)
    .executeTakeFirst();
  if (!current) throw forbidden();
  return current.role;
}

async function ownerCount(trx: Db, workspaceId: string): Promise<number> {
  const owners = await trx
    .selectFrom("members")
    .select((eb) => eb.fn.countAll<string | number>().as("count"))
    .where("workspace_id", "=", workspaceId)
    .where("role", "=", "owner")
    .executeTakeFirstOrThrow();
  return Number(owners.count);
}

export async function changeRole(db: Db, by: Membership, userId: string, role: Role, actor: Actor): Promise<Member> {
  if (userId === by.userId) throw forbidden("You cannot change your own role");
  return db.transaction().execute(async (trx) => {
    const byRole = await lockMembership(trx, by);
    if (!hasRole(byRole, "admin")) throw forbidden();
    const target = await getMember(trx, by.workspaceId, userId);
    if ((role !== "member" || target.role === "owner") && byRole !== "owner") throw forbidden(ONLY_OWNERS);
    if (target.role === role) return target;
    if (target.role === "owner" && (await ownerCount(trx, by.workspaceId)) <= 1) {
      throw conflict("The last owner cannot be demoted");
    }
    await updateRecorded(
      trx,
      "members",
      target.id,
      { role },
      {
        workspaceId: by.workspaceId,
        entityType: "member",
        actor,
        details: { user_id: userId, user_name: target.user.name, changes: { role: { from: target.role, to: role } } },
      },
    );
    return { ...target, role };
  });
}

/** An admin removes someone, or a member leaves; a workspace never loses its last owner. */
export async function removeMember(db: Db, by: Membership, userId: string, actor: Actor): Promise<void> {
  const leaving = userId === by.userId;
  if (!leaving && !hasRole(by.role, "admin")) throw forbidden();
  await db.transaction().execute(async (trx) => {
    const byRole = await lockMembership(trx, by);
    if (!leaving && !hasRole(byRole, "admin")) throw forbidden();
    const target = await getMember(trx, by.workspaceId, userId);
    if (target.role === "owner") {
      if (!leaving && byRole !== "owner") throw forbidden(ONLY_OWNERS);
      if ((await ownerCount(trx, by.workspaceId)) <= 1) throw conflict("The last owner cannot leave or be removed");
    }
    await trx.deleteFrom("members").where("id", "=", target.id).execute();
    // Their keys act as them: they stop working with the membership (the lookup checks it too).
    await trx
      .deleteFrom("api_keys")
      .where("workspace_id", "=", by.workspaceId)
      .where("created_by", "=", userId)
      .execute();
    await recordActivity(trx, {
      workspaceId: by.workspaceId,
      entityType: "member",
      entityId: target.id,
      actor,
      action: leaving ? "member.left" : "member.removed",
      details: { user_id: userId, user_name: target.user.name, role: target.role },
    });
  });
}
