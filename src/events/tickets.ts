// Stream tickets: browsers' EventSource cannot send an Authorization header, so a signed-in caller trades its
// credential for a short-lived ticket naming the workspace, passed as `?ticket=`. Signed (HMAC-SHA256) with a key
// derived from the JWT secret, so every process sharing that secret accepts it; a ticket is no login token, and a
// login token is no ticket (different keys).
import { createHmac, timingSafeEqual } from "node:crypto";

export const TICKET_TTL_MS = 60_000;

interface TicketClaims {
  workspaceId: string;
  userId: string;
  /** The API key the ticket was bought with, if any: the stream then lasts only while the key does. */
  apiKeyId?: string | undefined;
  /** Expiry, milliseconds since the epoch. */
  expiresAt: number;
}

type TicketCheck = { ok: true; claims: TicketClaims } | { ok: false; reason: "invalid" | "expired" };

export class TicketService {
  private readonly key: Buffer;

  /** `purpose` keys the tickets apart: an event stream's ticket opens no other stream (the inbox's), and back. */
  constructor(
    jwtSecret: string,
    private readonly ttlMs = TICKET_TTL_MS,
    purpose = "events",
  ) {
    this.key = createHmac("sha256", jwtSecret).update(`agent-platform ${purpose} ticket v1`).digest();
  }

  issue(claims: Omit<TicketClaims, "expiresAt">, at = Date.now()): { ticket: string; expiresAt: number } {
    const expiresAt = at + this.ttlMs;
    const payload = Buffer.from(
      JSON.stringify({ ws: claims.workspaceId, sub: claims.userId, key: claims.apiKeyId, exp: expiresAt }),
    ).toString("base64url");
    return { ticket: `${payload}.${this.mac(payload)}`, expiresAt };
  }

  check(ticket: string, at = Date.now()): TicketCheck {
    const [payload, mac, ...rest] = ticket.split(".");
    if (!payload || !mac || rest.length > 0) return { ok: false, reason: "invalid" };
    const expected = Buffer.from(this.mac(payload));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: "invalid" };
    let claims: { ws?: unknown; sub?: unknown; key?: unknown; exp?: unknown };
    try {
      claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    } catch {
      return { ok: false, reason: "invalid" };
    }
    if (typeof claims.ws !== "string" || typeof claims.sub !== "string" || typeof claims.exp !== "number") {
      return { ok: false, reason: "invalid" };
    }
    if (claims.exp <= at) return { ok: false, reason: "expired" };
    return {
      ok: true,
      claims: {
        workspaceId: claims.ws,
        userId: claims.sub,
        apiKeyId: typeof claims.key === "string" ? claims.key : undefined,
        expiresAt: claims.exp,
      },
    };
  }

  private mac(payload: string): string {
    return createHmac("sha256", this.key).update(payload).digest("base64url");
  }
}
