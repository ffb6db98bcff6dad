// Legacy SSE sessions across processes. Behind a round-robin load balancer a POST to /messages/ may reach another
// process than the one holding the session's stream. On PostgreSQL every session is recorded (opener, a hash of the
// opening credential, the holding process and a lease renewed while the stream lives), so any process can check a
// post against the opener and answer it; the message then travels to the holder on the holder's own NOTIFY channel
// (a large one waits in mcp_session_messages and the notification names it), and the holder dispatches it and
// writes the reply on its stream. SQLite serves one process: nothing is recorded, every session is local.
import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import type { Db } from "../db/index.ts";
import { type ListenerLog, PostgresListener } from "../db/listener.ts";
import { newId, now, timestampAt } from "../db/values.ts";
import { type Caller, TASK_OWNER_PREFIX } from "./caller.ts";

/** What the holder of a session is told. */
export type SessionDelivery = { kind: "message"; sessionId: string; body: string } | { kind: "end"; sessionId: string };

export interface SessionRouting {
  /** Records a session whose stream this process holds; done before its endpoint is announced. */
  opened(sessionId: string, opener: Caller): Promise<void>;
  closed(sessionId: string): Promise<void>;
  /** An open session held by another process; undefined when no process holds it. */
  findElsewhere(sessionId: string): Promise<RemoteSession | undefined>;
  /** Sends a checked message to the process holding the session. */
  forward(session: RemoteSession, body: string): Promise<void>;
  /** Ends a session held by another process (its opening credential no longer holds). */
  end(sessionId: string): Promise<void>;
  close(): Promise<void>;
}

interface RemoteSession {
  sessionId: string;
  /** Who opened it: every post must come from the same principal. */
  opener: Caller;
  /** The holding process's channel. */
  holder: string;
}

interface RoutingSettings {
  /** How long a session stays recorded without its holder renewing it (a killed process's sessions lapse). */
  leaseMs: number;
  renewMs: number;
}

const DEFAULT_ROUTING: RoutingSettings = { leaseMs: 45_000, renewMs: 15_000 };

/** NOTIFY payloads must stay under 8000 bytes; larger messages go through the table. */
const MAX_INLINE_BYTES = 7_000;

export function openSessionRouting(
  db: Db,
  dialect: "sqlite" | "postgres",
  databaseUrl: string,
  deliver: (delivery: SessionDelivery) => void,
  log: ListenerLog,
  settings: RoutingSettings = DEFAULT_ROUTING,
): SessionRouting {
  return dialect === "postgres" ? new PostgresRouting(db, databaseUrl, deliver, log, settings) : LOCAL_ONLY;
}

const LOCAL_ONLY: SessionRouting = {
  opened: async () => {},
  closed: async () => {},
  findElsewhere: async () => undefined,
  forward: async () => {},
  end: async () => {},
  close: async () => {},
};

class PostgresRouting implements SessionRouting {
  /** This process's channel, also recorded as the holder of its sessions. */
  private readonly channel = `mcp_sessions_${randomBytes(8).toString("hex")}`;
  private readonly listener: PostgresListener;
  private readonly renewal: NodeJS.Timeout;
  /** Large messages are read from the table in turn, so one session's messages reach dispatch in posting order. */
  private arrivals: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    databaseUrl: string,
    private readonly deliver: (delivery: SessionDelivery) => void,
    private readonly log: ListenerLog,
    private readonly settings: RoutingSettings,
  ) {
    this.listener = new PostgresListener(databaseUrl, [this.channel], { notification: (_, p) => this.arrive(p) }, log);
    this.renewal = setInterval(() => void this.renew(), settings.renewMs).unref();
  }

  async opened(sessionId: string, opener: Caller): Promise<void> {
    // A session must not be announced before this process hears its channel.
    await this.listener.ready;
    await this.db
      .insertInto("mcp_sessions")
      .values({
        id: sessionId,
        owner: opener.owner,
        credential_hash: opener.credentialHash ?? null,
        user_id: opener.scope.userId ?? null,
        workspace_id: opener.scope.workspaceId ?? null,
        holder: this.channel,
        expires_at: this.leaseEnd(),
      })
      .execute();
  }

  async closed(sessionId: string): Promise<void> {
    await this.db.deleteFrom("mcp_sessions").where("id", "=", sessionId).execute();
  }

  async findElsewhere(sessionId: string): Promise<RemoteSession | undefined> {
    const row = await this.db
      .selectFrom("mcp_sessions")
      .selectAll()
      .where("id", "=", sessionId)
      .where("expires_at", ">", now())
      .executeTakeFirst();
    if (!row) return undefined;
    const scope = {
      ...(row.user_id !== null && { userId: row.user_id }),
      ...(row.user_id !== null &&
        row.owner.startsWith(TASK_OWNER_PREFIX) && {
          agentId: row.user_id,
          taskId: row.owner.slice(TASK_OWNER_PREFIX.length),
        }),
      ...(row.workspace_id !== null && { workspaceId: row.workspace_id }),
    };
    const opener = {
      scope,
      owner: row.owner,
      ...(row.credential_hash !== null && { credentialHash: row.credential_hash }),
    };
    return { sessionId, opener, holder: row.holder };
  }

  async forward({ sessionId, holder }: RemoteSession, text: string): Promise<void> {
    // PostgreSQL text holds no NUL. A raw NUL is never valid JSON, so the holder gets a body that fails to parse the
    // same way (a -32700 reply) rather than this post failing.
    const body = text.includes("\u0000") ? "" : text;
    let payload = `m ${sessionId} ${body}`;
    if (Buffer.byteLength(payload) > MAX_INLINE_BYTES) {
      const messageId = newId();
      await this.db
        .insertInto("mcp_session_messages")
        .values({ id: messageId, session_id: sessionId, body, created_at: now() })
        .execute();
      payload = `r ${sessionId} ${messageId}`;
    }
    await sql`select pg_notify(${holder}, ${payload})`.execute(this.db);
  }

  async end(sessionId: string): Promise<void> {
    const ended = await this.db
      .deleteFrom("mcp_sessions")
      .where("id", "=", sessionId)
      .returning("holder")
      .executeTakeFirst();
    if (ended) await sql`select pg_notify(${ended.holder}, ${`e ${sessionId}`})`.execute(this.db);
  }

  async close(): Promise<void> {
    clearInterval(this.renewal);
    await this.listener.close();
    await this.db
      .deleteFrom("mcp_sessions")
      .where("holder", "=", this.channel)
      .execute()
      .catch(() => {});
  }

  private leaseEnd(): string {
    return timestampAt(Date.now() + this.settings.leaseMs);
  }

  private arrive(payload: string): void {
    const kind = payload.slice(0, 2);
    const rest = payload.slice(2);
    const space = rest.indexOf(" ");
    const sessionId = space < 0 ? rest : rest.slice(0, space);
    const detail = space < 0 ? "" : rest.slice(space + 1);
    if (kind === "e ") {
      this.deliver({ kind: "end", sessionId });
    } else if (kind === "m ") {
      this.arrivals = this.arrivals.then(() => this.deliver({ kind: "message", sessionId, body: detail }));
    } else if (kind === "r ") {
      this.arrivals = this.arrivals.then(async () => {
        const stored = await this.db
          .deleteFrom("mcp_session_messages")
          .where("id", "=", detail)
          .returning("body")
          .executeTakeFirst()
          .catch(() => undefined);
        if (stored) this.deliver({ kind: "message", sessionId, body: stored.body });
      });
    }
  }

  /** Keeps this process's sessions recorded, and forgets those whose holder stopped renewing them. */
  private async renew(): Promise<void> {
    try {
      await this.db
        .updateTable("mcp_sessions")
        .set({ expires_at: this.leaseEnd() })
        .where("holder", "=", this.channel)
        .execute();
      await this.db.deleteFrom("mcp_sessions").where("expires_at", "<", now()).execute();
      const stale = timestampAt(Date.now() - this.settings.leaseMs);
      await this.db.deleteFrom("mcp_session_messages").where("created_at", "<", stale).execute();
    } catch (error) {
      this.log.warn(
        { message: error instanceof Error ? error.message : String(error) },
        "mcp sessions: renewal failed",
      );
    }
  }
}
