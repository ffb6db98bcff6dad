// Registration as a flood meets it: a limit per client address per hour, and logins that still get through.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bcryptQueue } from "../../src/auth/passwords.ts";
import { registerUser, startTestApp, type TestApp } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";

const PASSWORD = "correct horse battery";
const production = {
  PLATFORM_ENV: "production",
  PLATFORM_JWT_SECRET: "a-test-secret-that-is-long-enough-for-production",
  TRUST_PROXY: "loopback",
};

describe.each(testDialects)("registration limit (%s)", (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(dialect, { env: production });
  });
  afterAll(() => t.close());

  const register = (index: number, from: string) =>
    t.api.post(
      "auth/register",
      { email: `flood-${from}-${index}@example.com`, password: PASSWORD },
      { headers: { "x-forwarded-for": from } },
    );

  it("a flood from one address gets 429 with Retry-After after 20 an hour; other addresses still register", async () => {
    const statuses = [];
    for (let index = 0; index < 22; index++) statuses.push((await register(index, "203.0.113.20")).status);
    expect(statuses).toEqual([...Array(20).fill(201), 429, 429]);
    const refused = await register(99, "203.0.113.20");
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(3600);
    expect(refused.body).toEqual({ detail: expect.any(String) });
    expect((await register(0, "198.51.100.20")).status).toBe(201);
  });
});

describe("logins during a registration flood", () => {
  let t: TestApp;
  beforeAll(async () => {
    // Dev: no registration limit, so the whole flood reaches bcrypt.
    t = await startTestApp("sqlite", { passwordRounds: 6 });
  });
  afterAll(() => t.close());

  it("a login goes before the registrations waiting for bcrypt, not behind them", async () => {
    const { user } = await registerUser(t.api, "existing");
    const flood = 60;
    let registered = 0;
    const registrations = Array.from({ length: flood }, (_, index) =>
      t.api.post("auth/register", { email: `crowd-${index}@example.com`, password: PASSWORD }).then((response) => {
        expect(response.status).toBe(201);
        registered += 1;
      }),
    );
    // The server runs in this process: wait until most of the flood is queued for bcrypt, then log in.
    await eventually(() => bcryptQueue().waitingHashes >= flood / 3, "the flood to queue up for bcrypt");
    const finishedBeforeLogin = registered;
    const login = await t.api.post("auth/login", { email: user.email, password: PASSWORD });
    const finishedDuringLogin = registered - finishedBeforeLogin;
    expect(login.status).toBe(200);
    await Promise.all(registrations);
    // Two hashes run at once; the login waits for one slot, not for the queue (at least 20 deep when it came). A
    // few more may finish while its own check and response are under way.
    expect(finishedDuringLogin).toBeLessThanOrEqual(8);
  });
});
