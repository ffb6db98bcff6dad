// The coalescing helper behind every "read/claim again" loop: never two passes at once, one more after a wake-up.
import { describe, expect, it } from "vitest";
import { Coalescer } from "../../src/db/coalesce.ts";

describe("Coalescer", () => {
  it("runs at once when idle, and once more (not once per call) after a pass that was woken", async () => {
    let running = 0;
    let most = 0;
    const passes: Array<() => void> = [];
    const coalescer = new Coalescer(
      () =>
        new Promise<void>((resolve) => {
          running++;
          most = Math.max(most, running);
          passes.push(() => {
            running--;
            resolve();
          });
        }),
      () => {},
    );
    coalescer.run();
    expect(passes).toHaveLength(1);
    coalescer.run();
    coalescer.run();
    coalescer.run();
    expect(passes).toHaveLength(1);
    passes[0]!();
    await new Promise(setImmediate);
    expect(passes).toHaveLength(2);
    passes[1]!();
    await coalescer.idle();
    expect(passes).toHaveLength(2);
    expect(most).toBe(1);
    expect(coalescer.busy).toBe(false);
  });

  it("reports a failed pass and runs afresh on the next call", async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const coalescer = new Coalescer(
      async () => {
        calls++;
        if (calls === 1) throw new Error("read failed");
      },
      (error) => errors.push(error),
    );
    coalescer.run();
    await coalescer.idle();
    expect(errors).toHaveLength(1);
    coalescer.run();
    await coalescer.idle();
    expect(calls).toBe(2);
    expect(errors).toHaveLength(1);
  });
});
