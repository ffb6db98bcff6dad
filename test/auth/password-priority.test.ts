// Registrations must not starve logins of bcrypt work: a waiting login check goes before every waiting hash.
import { describe, expect, it } from "vitest";
import { hashPassword, verifyPassword } from "../../src/auth/passwords.ts";

describe("bcrypt work order", () => {
  it("a login check queued behind many registration hashes runs as soon as a slot frees", async () => {
    const rounds = 6;
    const stored = await hashPassword("correct horse battery", rounds);
    const finished: string[] = [];
    const hashes = Array.from({ length: 8 }, (_, index) =>
      hashPassword(`registration ${index}`, rounds).then(() => finished.push(`hash ${index}`)),
    );
    const check = verifyPassword("correct horse battery", stored).then((matches) => {
      finished.push("check");
      return matches;
    });
    await Promise.all([...hashes, check]);
    expect(await check).toBe(true);
    // Two hashes hold the two slots when the check arrives; it takes the first slot that frees, so at most the
    // hash sharing its time in the other slot can finish before it.
    expect(finished.indexOf("check")).toBeLessThanOrEqual(3);
    expect(finished).toHaveLength(9);
  });
});
