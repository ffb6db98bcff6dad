// JWT access tokens: HS256 only, claims sub, email, name, iat, exp (exp required).
import { jwtVerify, SignJWT } from "jose";

interface TokenClaims {
  sub: string;
  email: string;
  name: string;
}

/** Tokens already verified, so a client's repeated requests skip the signature check until the token expires. */
const VERIFIED_CACHE_SIZE = 10_000;

export class TokenService {
  private readonly key: Uint8Array;
  private readonly verified = new Map<string, TokenClaims & { exp: number }>();

  constructor(
    secret: string,
    private readonly ttlSeconds: number,
  ) {
    this.key = new TextEncoder().encode(secret);
  }

  issue(user: { id: string; email: string; name: string }): Promise<string> {
    const issuedAt = Math.floor(Date.now() / 1000);
    return new SignJWT({ email: user.email, name: user.name })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject(user.id)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + this.ttlSeconds)
      .sign(this.key);
  }

  /** The claims of a valid token, or undefined for anything else (bad signature, expired, other algorithm, no exp). */
  // jose verifies through WebCrypto, which runs on libuv's thread pool: a round trip that costs more than the rest
  // of a small request, and that queues behind bcrypt during login bursts. The cache holds only exact token strings
  // that this key already verified, and honours their expiry.
  async verify(token: string): Promise<TokenClaims | undefined> {
    const cached = this.verified.get(token);
    if (cached) {
      if (cached.exp > Date.now() / 1000) return cached;
      this.verified.delete(token);
      return undefined;
    }
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: ["HS256"], requiredClaims: ["exp", "sub"] });
      if (typeof payload.sub !== "string" || typeof payload.exp !== "number") return undefined;
      const claims = {
        sub: payload.sub,
        email: typeof payload.email === "string" ? payload.email : "",
        name: typeof payload.name === "string" ? payload.name : "",
        exp: payload.exp,
      };
      if (this.verified.size >= VERIFIED_CACHE_SIZE) this.verified.delete(this.verified.keys().next().value as string);
      this.verified.set(token, claims);
      return claims;
    } catch {
      return undefined;
    }
  }
}
