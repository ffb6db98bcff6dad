// Registrations must not starve logins of bcrypt work: a waiting login check goes before every waiting hash.
import { describe, expect, it } from "vitest";
import { bcryptQueue, hashPassword, verifyPassword } from "../../src/auth/passwords.ts";

describe("bcrypt work order", () => {
  it("a login check queued behind many registration hashes takes the first slot that frees", async () => {
    const rounds = 6;
    const stored = await hashPassword("correct horse battery", rounds);
    // Read the queue the moment the first hash finishes: its slot has just been handed on.
    let atFirstFinish: ReturnType<typeof bcryptQueue> | undefined;
    const hashes = Array.from({ length: 8 }, (_, index) =>
      hashPassword(`registration ${index}`, rounds).then(() => {
        atFirstFinish ??= bcryptQueue();
        return index;
      }),
    );
    const check = verifyPassword("correct horse battery", stored);
    expect(bcryptQueue()).toEqual({ running: 2, waitingChecks: 1, waitingHashes: 6 });
    expect(await check).toBe(true);
    await Promise.all(hashes);
    // The check went ahead of the six hashes that were waiting before it.
    expect(atFirstFinish).toEqual({ running: 2, waitingChecks: 0, waitingHashes: 6 });
    expect(bcryptQueue()).toEqual({ running: 0, waitingChecks: 0, waitingHashes: 0 });
  });
});
