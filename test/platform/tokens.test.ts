import { afterEach, describe, expect, it, vi } from "vitest";
import { TokenService } from "../../src/auth/tokens.ts";

const user = { id: "8d1b6c55-4a52-4a39-9f2e-0a3f3c1b2d4e", email: "t@example.com", name: "T" };

describe("token verification cache", () => {
  afterEach(() => vi.useRealTimers());

  it("a token verified once stops working the moment it expires", async () => {
    const service = new TokenService("s".repeat(32), 60);
    const token = await service.issue(user);
    expect(await service.verify(token)).toMatchObject({ sub: user.id, email: user.email, name: user.name });
    expect(await service.verify(token)).toMatchObject({ sub: user.id });
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 61_000);
    expect(await service.verify(token)).toBeUndefined();
  });

  it("a token signed with another secret is refused even after a valid one was cached", async () => {
    const ours = new TokenService("s".repeat(32), 60);
    const theirs = new TokenService("t".repeat(32), 60);
    await ours.verify(await ours.issue(user));
    expect(await ours.verify(await theirs.issue(user))).toBeUndefined();
  });
});
