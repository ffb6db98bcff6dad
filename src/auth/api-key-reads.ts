// The principal behind an API key (by the key's hash): its creator, who must still be a member of the key's
// workspace, with their role and that workspace's issue list version. Read on every request that carries a key: on
// PostgreSQL, concurrent reads go together (db/batched-reads.ts); SQLite answers in-process, one query each.
import { sql } from "kysely";
import { BatchedReads } from "../db/batched-reads.ts";
import { type Db, isPostgres } from "../db/index.ts";
import type { Role } from "./membership.ts";

interface ApiKeyRow {
  key_hash: string;
  keyId: string;
  workspace_id: string;
  id: string;
  name: string;
  email: string;
  role: Role;
  issue_list_version: number | string;
}

/** The key's row, or undefined when no key has this hash or its creator has left the key's workspace. */
export type ApiKeyReads = (keyHash: string) => Promise<ApiKeyRow | undefined>;

export function apiKeyReads(db: Db): ApiKeyReads {
  if (!isPostgres(db)) return async (keyHash) => (await readKeys(db, [keyHash]))[0];
  const batched = new BatchedReads<ApiKeyRow>(
    async (hashes) => new Map((await readKeys(db, hashes)).map((row) => [row.key_hash, row])),
  );
  return (keyHash) => batched.read(keyHash);
}

function readKeys(db: Db, hashes: string[]): Promise<ApiKeyRow[]> {
  return (
    db
      .selectFrom("api_keys")
      .innerJoin("users", "users.id", "api_keys.created_by")
      // A key acts as its creator: once the creator has left the workspace, the key opens nothing.
      .innerJoin("members", (join) =>
        join.onRef("members.workspace_id", "=", "api_keys.workspace_id").onRef("members.user_id", "=", "users.id"),
      )
      .innerJoin("workspaces", "workspaces.id", "api_keys.workspace_id")
      .select([
        "api_keys.key_hash",
        "api_keys.id as keyId",
        "api_keys.workspace_id",
        "users.id",
        "users.name",
        "users.email",
        "members.role",
        "workspaces.issue_list_version",
      ])
      // On PostgreSQL a batch's hashes are one array parameter: one statement text whatever their number.
      .where(
        isPostgres(db)
          ? sql<boolean>`api_keys.key_hash = any(${hashes}::text[])`
          : sql<boolean>`api_keys.key_hash = ${hashes[0]}`,
      )
      .execute()
  );
}
