// Per-call auth for the media stream. The webhook hands the carrier a token as a <Parameter> (carriers drop query
// strings); the stream's `start` frame brings it back. It is an HMAC over the call sid, an expiry and a random id,
// under a key derived from PLATFORM_JWT_SECRET, so any call process on the same secret accepts a token another one
// issued. A token works for one call and once: its id is recorded in the database on first use.
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";
import type { Db } from "../db/index.ts";
import { now, timestampAt } from "../db/values.ts";

export const STREAM_TOKEN_PARAMETER = "token";
/** The caller's number (the webhook's From), passed to the stream when a phone agent takes the calls. */
export const CALLER_PARAMETER = "from";
/** The id of the outbound call (POST /calls) the stream belongs to. */
export const OUTBOUND_CALL_PARAMETER = "call";

/** What a stream token binds besides the call sid: every other parameter the webhook hands the stream. */
export function boundParameters(parameters: Record<string, string>): string {
  return Object.keys(parameters)
    .filter((name) => name !== STREAM_TOKEN_PARAMETER)
    .sort()
    .map((name) => `${name}=${parameters[name]}`)
    .join("\n");
}
const LIFETIME_MS = 5 * 60_000;
const TOKEN_SHAPE = /^(\d{1,15})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;

export class StreamTokens {
  private readonly key: Buffer;

  /**
   * `secret` is shared by every process that may receive a stream; without one (the public development value) this
   * process signs with a random key of its own, so a token is only accepted by the process that issued it.
   */
  constructor(
    private readonly db: Db,
    secret: string | undefined,
  ) {
    this.key =
      secret === undefined
        ? randomBytes(32)
        : Buffer.from(hkdfSync("sha256", secret, "agent-platform", "voice media-stream tokens", 32));
  }

  /** `bound` (boundParameters of what else the stream carries) is bound to the token so it cannot be changed. */
  issue(callSid: string, nowMs = Date.now(), bound = ""): string {
    const expiresAt = nowMs + LIFETIME_MS;
    const tokenId = randomBytes(16).toString("base64url");
    return `${expiresAt}.${tokenId}.${this.mac(callSid, expiresAt, tokenId, bound).toString("base64url")}`;
  }

  /** True once for a genuine, unexpired token of this call; every later use (by any process) is refused. */
  async use(token: string | undefined, callSid: string, nowMs = Date.now(), bound = ""): Promise<boolean> {
    const match = TOKEN_SHAPE.exec(token ?? "");
    if (!match) return false;
    const expiresAt = Number(match[1]);
    const tokenId = match[2]!;
    if (expiresAt < nowMs) return false;
    const given = Buffer.from(match[3]!, "base64url");
    const expected = this.mac(callSid, expiresAt, tokenId, bound);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return false;

    await this.db.deleteFrom("used_stream_tokens").where("expires_at", "<", now()).execute();
    const inserted = await this.db
      .insertInto("used_stream_tokens")
      .values({ token_id: tokenId, expires_at: timestampAt(expiresAt) })
      .onConflict((conflict) => conflict.column("token_id").doNothing())
      .executeTakeFirst();
    return inserted.numInsertedOrUpdatedRows === 1n;
  }

  private mac(callSid: string, expiresAt: number, tokenId: string, bound: string): Buffer {
    const extra = bound === "" ? "" : `\n${bound}`;
    return createHmac("sha256", this.key).update(`${callSid}\n${expiresAt}\n${tokenId}${extra}`).digest();
  }
}
