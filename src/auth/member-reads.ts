// A signed-in user's standing in one workspace (who they are, their role there, the workspace's issue list version),
// read for every workspace request. On PostgreSQL the read is a network round trip, and under load most of a cached
// request's cost is the database's: there, the reads of requests that arrive while others are in flight wait and go
// together, one query for all of them (duplicates read once). A read only ever joins a query that starts after the
// request arrived, so it is as fresh as a query of its own would be. SQLite answers in-process: one query each.
import { sql } from "kysely";
import { type Db, isPostgres } from "../db/index.ts";
import type { Role } from "./membership.ts";

export interface MemberRow {
  id: string;
  name: string;
  email: string;
  /** Null when the user is not a member (or the workspace does not exist). */
  role: Role | null;
  issue_list_version: number | string | null;
}

/** How many batched queries may run at once; the rest of the pool stays free for everything else. */
const QUERIES_IN_FLIGHT = 2;
/** Keys per query: a bound on the statement's arrays, far above what a pool's worth of requests produces. */
const KEYS_PER_QUERY = 500;

type Waiter = { resolve(row: MemberRow | undefined): void; reject(error: unknown): void };

export interface MemberReads {
  /** The user (undefined when there is none) with their role in the workspace and its list version. */
  read(userId: string, workspaceId: string): Promise<MemberRow | undefined>;
}

export function memberReads(db: Db): MemberReads {
  return isPostgres(db)
    ? new BatchedMemberReads(db)
    : { read: (userId, workspaceId) => readOne(db, userId, workspaceId) };
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

class BatchedMemberReads implements MemberReads {
  /** Reads waiting for the next query, by `userId workspaceId`. */
  private waiting = new Map<string, Waiter[]>();
  private inFlight = 0;

  constructor(private readonly db: Db) {}

  read(userId: string, workspaceId: string): Promise<MemberRow | undefined> {
    return new Promise((resolve, reject) => {
      const key = `${userId} ${workspaceId}`;
      const waiters = this.waiting.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else this.waiting.set(key, [{ resolve, reject }]);
      this.startQueries();
    });
  }

  private startQueries(): void {
    while (this.inFlight < QUERIES_IN_FLIGHT && this.waiting.size > 0) {
      const batch = new Map<string, Waiter[]>();
      for (const [key, waiters] of this.waiting) {
        if (batch.size === KEYS_PER_QUERY) break;
        batch.set(key, waiters);
        this.waiting.delete(key);
      }
      this.inFlight++;
      this.query(batch).finally(() => {
        this.inFlight--;
        this.startQueries();
      });
    }
  }

  private async query(batch: Map<string, Waiter[]>): Promise<void> {
    const userIds: string[] = [];
    const workspaceIds: string[] = [];
    for (const key of batch.keys()) {
      const space = key.indexOf(" ");
      userIds.push(key.slice(0, space));
      workspaceIds.push(key.slice(space + 1));
    }
    try {
      const { rows } = await sql<MemberRow & { workspace_id: string }>`
        select users.id, users.name, users.email, members.role, workspaces.issue_list_version, asked.workspace_id
        from unnest(${userIds}::text[], ${workspaceIds}::text[]) as asked(user_id, workspace_id)
        join users on users.id = asked.user_id
        left join members on members.user_id = asked.user_id and members.workspace_id = asked.workspace_id
        left join workspaces on workspaces.id = members.workspace_id`.execute(this.db);
      const found = new Map(rows.map(({ workspace_id, ...row }) => [`${row.id} ${workspace_id}`, row]));
      for (const [key, waiters] of batch) for (const waiter of waiters) waiter.resolve(found.get(key));
    } catch (error) {
      for (const waiters of batch.values()) for (const waiter of waiters) waiter.reject(error);
    }
  }
}
