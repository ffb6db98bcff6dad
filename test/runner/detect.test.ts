import { rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { detectRuntimes } from "../../src/runner/detect.ts";
import { fakeCliBin } from "../helpers/fake-clis/index.ts";

const bin = fakeCliBin(["claude", "codex"]);
afterAll(() => rmSync(bin, { recursive: true, force: true }));

const env = { PATH: `${bin}:/usr/bin:/bin` };

describe("runtime detection", () => {
  it("offers each agent CLI on PATH with the version it prints, and each --runtime as a command runtime, all tagged", async () => {
    const runtimes = await detectRuntimes({
      path: `/nonexistent:${bin}`,
      commandRuntimes: ["triage=python3 triage.py --fast"],
      tags: ["gpu", "linux"],
      env,
    });
    expect(runtimes).toEqual([
      { name: "claude", kind: "claude", command: `${bin}/claude`, version: "2.1.220", tags: ["gpu", "linux"] },
      { name: "codex", kind: "codex", command: `${bin}/codex`, version: "0.58.0", tags: ["gpu", "linux"] },
      { name: "triage", kind: "command", command: "python3 triage.py --fast", tags: ["gpu", "linux"] },
    ]);
  });

  it("refuses a --runtime that is not name=command, or names a runtime twice", async () => {
    const detect = (value: string) => detectRuntimes({ path: bin, commandRuntimes: [value], tags: [], env });
    await expect(detect("just-a-command")).rejects.toThrow("--runtime just-a-command: expected name=command");
    await expect(detect("bad name=cmd")).rejects.toThrow("expected name=command");
    await expect(detect("claude=my-claude-wrapper")).rejects.toThrow("a runtime named claude is already offered");
  });
});
