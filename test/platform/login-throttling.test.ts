// Login throttling as an attacker meets it: only failures count, per email and client address (from
// X-Forwarded-For only behind TRUST_PROXY), and every instance on the database shares the counts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WindowCounter } from "../../src/auth/rate-limit.ts";
import { type ApiClient, registerUser, startAppOn, startTestApp, type TestApp } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";

const PASSWORD = "correct horse battery";
const limits = { failuresPerEmail: 3, failuresPerAddress: 5, windowMs: 60_000 };

const login = async (api: ApiClient, email: string, password: string, from?: string) =>
  (await api.post("auth/login", { email, password }, from ? { headers: { "x-forwarded-for": from } } : {})).status;

describe.each(testDialects)("login throttling (%s)", (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(dialect, { loginRateLimit: limits, env: { TRUST_PROXY: "loopback" } });
  });
  afterAll(() => t.close());

  it("behind TRUST_PROXY, failures from one forwarded address do not lock the email out from another", async () => {
    const { user } = await registerUser(t.api, "proxied");
    for (let attempt = 0; attempt < limits.failuresPerEmail; attempt++) {
      expect(await login(t.api, user.email, "wrong", "203.0.113.7")).toBe(401);
    }
    const blocked = await t.api.post(
      "auth/login",
      { email: user.email, password: PASSWORD },
      { headers: { "x-forwarded-for": "203.0.113.7" } },
    );
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(blocked.body).toEqual({ detail: expect.any(String) });
    expect(await login(t.api, user.email, PASSWORD, "198.51.100.9")).toBe(200);
  });

  it("many successful logins never lock anyone out", async () => {
    const { user } = await registerUser(t.api, "regular");
    for (let attempt = 0; attempt < 3 * (limits.failuresPerEmail + limits.failuresPerAddress); attempt++) {
      expect(await login(t.api, user.email, PASSWORD, "192.0.2.10")).toBe(200);
    }
  });

  it("logging in to one's own account between guesses does not reset the address's count of failures", async () => {
    const { user } = await registerUser(t.api, "guesser");
    for (let guess = 0; guess < limits.failuresPerAddress; guess++) {
      expect(await login(t.api, user.email, PASSWORD, "192.0.2.66")).toBe(200);
      expect(await login(t.api, `victim-${guess}@example.com`, "guess", "192.0.2.66")).toBe(404);
    }
    // The address has used up its failures: it waits out the window, whatever it tries.
    expect(await login(t.api, "victim-next@example.com", "guess", "192.0.2.66")).toBe(429);
    expect(await login(t.api, user.email, PASSWORD, "192.0.2.66")).toBe(429);
  });

  it("two instances on one database share the lockout: failures on one lock the email on the other", async () => {
    const other = await startAppOn(t.databaseUrl, dialect, { loginRateLimit: limits });
    try {
      const { user } = await registerUser(t.api, "shared");
      for (let attempt = 0; attempt < limits.failuresPerEmail; attempt++) {
        const instance = attempt % 2 === 0 ? t.api : other.api;
        expect(await login(instance, user.email, "wrong")).toBe(401);
      }
      expect(await login(other.api, user.email, PASSWORD)).toBe(429);
      expect(await login(t.api, user.email, PASSWORD)).toBe(429);
    } finally {
      await other.close();
    }
  });
});

describe("login throttling without TRUST_PROXY", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp("sqlite", { loginRateLimit: limits });
  });
  afterAll(() => t.close());

  it("ignores X-Forwarded-For: a forged header does not buy fresh attempts", async () => {
    const { user } = await registerUser(t.api, "direct");
    for (let attempt = 0; attempt < limits.failuresPerEmail; attempt++) {
      expect(await login(t.api, user.email, "wrong", `203.0.113.${attempt + 1}`)).toBe(401);
    }
    expect(await login(t.api, user.email, PASSWORD, "198.51.100.200")).toBe(429);
  });
});

describe.each(testDialects)("rate-limit windows (%s)", (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(dialect);
  });
  afterAll(() => t.close());

  it("windows that have ended are swept from the database now and then, by the counting itself", async () => {
    const counter = new WindowCounter(t.db, 60_000);
    const hourAgo = Date.now() - 3_600_000;
    expect((await counter.add("old bucket", hourAgo)).count).toBe(1);
    const windowsOf = async (key: string) =>
      (await t.db.selectFrom("rate_limits").select("count").where("key", "=", key).execute()).length;
    expect(await windowsOf("old bucket")).toBe(1);
    let last = 0;
    for (let attempt = 0; attempt < 200; attempt++) last = (await counter.add("busy bucket")).count;
    expect(last).toBeGreaterThanOrEqual(100);
    expect(await windowsOf("old bucket")).toBe(0);
    expect(await windowsOf("busy bucket")).toBeGreaterThan(0);
  });
});
