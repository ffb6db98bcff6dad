// JWT access tokens: HS256 only, claims sub, email, name, iat, exp (exp required).
import { jwtVerify, SignJWT } from "jose";

export interface TokenClaims {
  sub: string;
  email: string;
  name: string;
}

export class TokenService {
  private readonly key: Uint8Array;

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
  async verify(token: string): Promise<TokenClaims | undefined> {
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: ["HS256"], requiredClaims: ["exp", "sub"] });
      if (typeof payload.sub !== "string") return undefined;
      return {
        sub: payload.sub,
        email: typeof payload.email === "string" ? payload.email : "",
        name: typeof payload.name === "string" ? payload.name : "",
      };
    } catch {
      return undefined;
    }
  }
}
