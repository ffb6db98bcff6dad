// The cap on long-lived streams open per user (MAX_STREAMS_PER_USER), across every kind and every process: each
// open stream is a row of open_streams held by the process serving it and renewed while it lives, so a killed
// process's streams stop counting once their lease lapses and any process sweeps them away.
import type { FastifyReply } from "fastify";
import { type Db, isPostgres } from "../db/index.ts";
import type { OpenStreamsTable } from "../db/schema.ts";
import { newId, now, timestampAt } from "../db/values.ts";
import { HttpError } from "./errors.ts";
import { type SseOptions, SseStream } from "./sse.ts";

export interface OpenStreamSettings {
  /** Streams one user may hold open at once. */
  maxPerUser: number;
  /** How long a stream counts without its process renewing it (default 60 s). */
  leaseMs?: number;
}

const DEFAULT_LEASE_MS = 60_000;

export class OpenStreams {
  /** This process, as the holder of its streams' rows. */
  private readonly holder = newId();
  private readonly leaseMs: number;
  private readonly renewal: NodeJS.Timeout;
  private renewing: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly settings: OpenStreamSettings,
  ) {
    this.leaseMs = settings.leaseMs ?? DEFAULT_LEASE_MS;
    this.renewal = setInterval(
      () => {
        this.renewing = this.renewAndSweep().catch(() => {});
      },
      Math.max(50, Math.floor(this.leaseMs / 3)),
    ).unref();
  }

  /**
   * Opens a server-sent event stream on `reply` counted against `userId`'s cap: 429 (before anything is sent) when
   * the user already has the most open. Undefined when the client left meanwhile.
   */
  async open(
    reply: FastifyReply,
    userId: string,
    kind: OpenStreamsTable["kind"],
    options?: SseOptions,
  ): Promise<SseStream | undefined> {
    const id = await this.take(userId, kind);
    const stream = SseStream.open(reply, options);
    if (!stream) {
      await this.release(id);
      return undefined;
    }
    stream.onClose(() => void this.release(id).catch(() => {}));
    return stream;
  }

  /** Shutdown: this process's streams stop counting now. */
  async close(): Promise<void> {
    clearInterval(this.renewal);
    await this.renewing;
    await this.db.deleteFrom("open_streams").where("holder", "=", this.holder).execute();
  }

  private async take(userId: string, kind: OpenStreamsTable["kind"]): Promise<string> {
    const id = newId();
    const taken = await this.db.transaction().execute(async (trx) => {
      // One user's opens take turns (PostgreSQL; SQLite runs one transaction at a time): two processes cannot both
      // see room for the last stream. The lock conflicts with no insert that references the user.
      if (isPostgres(trx)) {
        const user = await trx.selectFrom("users").select("id").where("id", "=", userId).forNoKeyUpdate().execute();
        if (user.length === 0) return false;
      }
      const { count } = await trx
        .selectFrom("open_streams")
        .select((eb) => eb.fn.countAll<string | number>().as("count"))
        .where("user_id", "=", userId)
        .where("expires_at", ">", now())
        .executeTakeFirstOrThrow();
      if (Number(count) >= this.settings.maxPerUser) return false;
      await trx
        .insertInto("open_streams")
        .values({ id, user_id: userId, kind, holder: this.holder, expires_at: this.leaseEnd() })
        .execute();
      return true;
    });
    if (!taken) {
      throw new HttpError(
        429,
        `Too many open streams: at most ${this.settings.maxPerUser} per user. Close one (or wait for one to end) first.`,
      );
    }
    return id;
  }

  private async release(id: string): Promise<void> {
    await this.db.deleteFrom("open_streams").where("id", "=", id).execute();
  }

  private leaseEnd(): string {
    return timestampAt(Date.now() + this.leaseMs);
  }

  /** Keeps this process's streams counted, and takes away those whose process stopped renewing them. */
  private async renewAndSweep(): Promise<void> {
    await this.db
      .updateTable("open_streams")
      .set({ expires_at: this.leaseEnd() })
      .where("holder", "=", this.holder)
      .execute();
    await this.db.deleteFrom("open_streams").where("expires_at", "<=", now()).execute();
  }
}
