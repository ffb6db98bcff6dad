import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerUser, startTestApp, type TestApp } from "../helpers/app.ts";

describe("login rate limit", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp("sqlite", {
      loginRateLimit: { failuresPerEmail: 3, failuresPerAddress: 100, windowMs: 60_000 },
    });
  });
  afterAll(() => t.close());

  it("locks an email out with 429 and Retry-After after repeated failures, even for the right password", async () => {
    const { user } = await registerUser(t.api, "locked");
    for (let attempt = 0; attempt < 3; attempt++) {
      expect((await t.api.post("auth/login", { email: user.email, password: "wrong" })).status).toBe(401);
    }
    const blocked = await t.api.post("auth/login", { email: user.email, password: "correct horse battery" });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    const other = await registerUser(t.api, "unaffected");
    expect(
      (await t.api.post("auth/login", { email: other.user.email, password: "correct horse battery" })).status,
    ).toBe(200);
  });

  it("limits attempts per client address", async () => {
    const strict = await startTestApp("sqlite", {
      loginRateLimit: { failuresPerEmail: 100, failuresPerAddress: 2, windowMs: 60_000 },
    });
    try {
      const statuses = [];
      for (let attempt = 0; attempt < 3; attempt++) {
        statuses.push(
          (await strict.api.post("auth/login", { email: `n${attempt}@example.com`, password: "x" })).status,
        );
      }
      expect(statuses).toEqual([404, 404, 429]);
    } finally {
      await strict.close();
    }
  });
});
