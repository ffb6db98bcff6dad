import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEV_JWT_SECRET } from "../../src/config.ts";
import { registerUser, startTestApp, type TestApp } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";

const secret = new TextEncoder().encode(DEV_JWT_SECRET);

describe.each(testDialects)("auth (%s)", (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(dialect);
  });
  afterAll(() => t.close());

  it("register returns a token that works for /auth/me, and never the password", async () => {
    const email = `Flow.${dialect}@Example.COM`;
    const registered = await t.api.post("auth/register", { email, password: "s3cret-pass", name: "Flow" });
    expect(registered.status).toBe(201);
    expect(registered.body.user).toMatchObject({
      name: "Flow",
      email: `Flow.${dialect}@example.com`,
      avatar_url: null,
    });
    expect(registered.body.user.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/);
    expect(JSON.stringify(registered.body)).not.toContain("s3cret-pass");

    const me = await t.api.get("auth/me", { token: registered.body.token });
    expect(me.status).toBe(200);
    expect(me.body).toEqual(registered.body.user);
  });

  it("login: case-insensitive email, wrong password 401, unknown user 404, duplicate register 409", async () => {
    const { user } = await registerUser(t.api, "login");
    const ok = await t.api.post("auth/login", { email: user.email.toUpperCase(), password: "correct horse battery" });
    expect(ok.status).toBe(200);
    expect(ok.body.user.id).toBe(user.id);

    const wrong = await t.api.post("auth/login", { email: user.email, password: "nope" });
    expect(wrong).toMatchObject({ status: 401, body: { detail: "Invalid email or password" } });

    const unknown = await t.api.post("auth/login", { email: "nobody@example.com", password: "x" });
    expect(unknown).toMatchObject({ status: 404, body: { detail: "User not found" } });

    const again = await t.api.post("auth/register", { email: user.email, password: "whatever-pass" });
    expect(again).toMatchObject({ status: 409, body: { detail: "Email already registered" } });
  });

  it("rejects missing, malformed, expired, unsigned and wrongly signed tokens with 401", async () => {
    const { user } = await registerUser(t.api, "tokens");
    const missing = await t.api.get("auth/me");
    expect(missing).toMatchObject({ status: 401, body: { detail: "Missing Authorization header" } });
    const format = await t.api.get("auth/me", { headers: { authorization: "Token abc" } });
    expect(format).toMatchObject({
      status: 401,
      body: { detail: "Invalid Authorization header format. Use: Bearer <token>" },
    });
    const now = Math.floor(Date.now() / 1000);
    const claims = { email: user.email, name: user.name };
    const expired = await new SignJWT(claims)
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(user.id)
      .setIssuedAt(now - 100)
      .setExpirationTime(now - 10)
      .sign(secret);
    const noExp = await new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).setSubject(user.id).sign(secret);
    const wrongKey = await new SignJWT(claims)
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(user.id)
      .setExpirationTime(now + 100)
      .sign(new TextEncoder().encode("another-secret-another-secret-xx"));
    const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const algNone = `${b64({ alg: "none", typ: "JWT" })}.${b64({ sub: user.id, exp: now + 100 })}.`;
    for (const token of [expired, noExp, wrongKey, algNone, "garbage"]) {
      const response = await t.api.get("auth/me", { token });
      expect(response).toMatchObject({ status: 401, body: { detail: "Invalid or expired token" } });
    }
  });
});
