// Per-call auth for the media stream. The webhook hands the carrier a token as a <Parameter> (carriers drop query
// strings); the stream's `start` frame brings it back. It is an HMAC over the call sid and an expiry, under a key
// that lives only in this process, so no state is kept and a token works for one call only.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export const STREAM_TOKEN_PARAMETER = "token";
const LIFETIME_MS = 5 * 60_000;

export class StreamTokens {
  private readonly key = randomBytes(32);

  issue(callSid: string, nowMs = Date.now()): string {
    const expiresAt = nowMs + LIFETIME_MS;
    return `${expiresAt}.${this.mac(callSid, expiresAt).toString("base64url")}`;
  }

  verify(token: string | undefined, callSid: string, nowMs = Date.now()): boolean {
    const match = /^(\d{1,15})\.([A-Za-z0-9_-]{43})$/.exec(token ?? "");
    if (!match) return false;
    const expiresAt = Number(match[1]);
    if (expiresAt < nowMs) return false;
    const given = Buffer.from(match[2]!, "base64url");
    const expected = this.mac(callSid, expiresAt);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private mac(callSid: string, expiresAt: number): Buffer {
    return createHmac("sha256", this.key).update(`${callSid}\n${expiresAt}`).digest();
  }
}
