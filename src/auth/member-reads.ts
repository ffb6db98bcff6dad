// A signed-in user's standing in one workspace (who they are, their role there, the workspace's issue list version),
// read for every workspace request: on PostgreSQL, concurrent reads go together (db/batched-reads.ts); SQLite
// answers in-process, one query each.
import { sql } from "kysely";
import { BatchedReads } from "../db/batched-reads.ts";
import { type Db, isPostgres } from "../db/index.ts";
import type { Role } from "./membership.ts";

interface MemberRow {
  id: string;
  name: string;
  email: string;
  /** Null when the user is not a member (or the workspace does not exist). */
  role: Role | null;
  issue_list_version: number | string | null;
}

/** The user (undefined when there is none) with their role in the workspace and its list version. */
export type MemberReads = (userId: string, workspaceId: string) => Promise<MemberRow | undefined>;

export function memberReads(db: Db): MemberReads {
  if (!isPostgres(db)) return (userId, workspaceId) => readOne(db, userId, workspaceId);
  // Keys are `userId workspaceId`: ids never hold a space.
  const batched = new BatchedReads<MemberRow>(async (keys) => {
    const pairs = keys.map((key) => key.split(" "));
    const { rows } = await sql<MemberRow & { workspace_id: string }>`
      select users.id, users.name, users.email, members.role, workspaces.issue_list_version, asked.workspace_id
      from unnest(${pairs.map(([user]) => user)}::text[], ${pairs.map(([, workspace]) => workspace)}::text[])
        as asked(user_id, workspace_id)
      join users on users.id = asked.user_id
      left join members on members.user_id = asked.user_id and members.workspace_id = asked.workspace_id
      left join workspaces on workspaces.id = members.workspace_id`.execute(db);
    return new Map(rows.map(({ workspace_id, ...row }) => [`${row.id} ${workspace_id}`, row]));
  });
  return (userId, workspaceId) => batched.read(`${userId} ${workspaceId}`);
}

function readOne(db: Db, userId: string, workspaceId: string): Promise<MemberRow | undefined> {
  return db
    .selectFrom("users")
    .leftJoin("members", (join) =>
      join.onRef("members.user_id", "=", "users.id").on("members.workspace_id", "=", workspaceId),
    )
    .leftJoin("workspaces", "workspaces.id", "members.workspace_id")
    .select(["users.id", "users.name", "users.email", "members.role", "workspaces.issue_list_version"])
    .where("users.id", "=", userId)
    .executeTakeFirst();
}
