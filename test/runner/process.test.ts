import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { processAlive } from "../../src/runner/process-group.ts";
import { eventually } from "../helpers/eventually.ts";
import { fakeCliBin } from "../helpers/fake-clis/index.ts";
import { assignmentFor, cliRuntime, RunnerHarness } from "../helpers/runner.ts";

const bin = fakeCliBin(["claude", "codex"]);
const scratch = mkdtempSync(join(tmpdir(), "runner-process-"));
const left: number[] = [];
afterAll(() => {
  for (const pid of left) if (processAlive(pid)) process.kill(pid, "SIGKILL");
  rmSync(bin, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

async function pidsOf(file: string): Promise<{ cli: number; child: number }> {
  const pids = await eventually(() => (existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : undefined));
  left.push(pids.cli, pids.child);
  return pids;
}

describe("an agent CLI's process", () => {
  it("is ended with everything it started (a child too) within 5 s of a cancel, even when it ignores SIGTERM", async () => {
    const harness = new RunnerHarness();
    const pidFile = join(scratch, "stubborn.json");
    const { task, run } = await harness.start(
      cliRuntime("claude", bin),
      assignmentFor({ prompt: `# ENG-8\nFAKE: stubborn\nFAKE: spawn-child ${pidFile}\n` }),
    );
    const pids = await pidsOf(pidFile);
    expect(processAlive(pids.cli) && processAlive(pids.child)).toBe(true);

    const asked = performance.now();
    await task.stop("cancelled");
    const tookMs = performance.now() - asked;

    expect(processAlive(pids.cli)).toBe(false);
    expect(processAlive(pids.child)).toBe(false);
    expect(tookMs).toBeLessThan(5000);
    expect((await run).end).toEqual({ outcome: "stopped" });
  });

  it("is ended, children too, and the task failed as retryable when it is silent past the silence timeout", async () => {
    const harness = new RunnerHarness();
    const pidFile = join(scratch, "silent.json");
    const { run } = await harness.start(
      cliRuntime("codex", bin),
      assignmentFor({ prompt: `# ENG-9\nFAKE: spawn-child ${pidFile}\n` }),
      { silenceMs: 1000 },
    );
    const pids = await pidsOf(pidFile);

    const { end, events } = await run;
    expect(end).toEqual({
      outcome: "fail",
      body: { error: "codex printed nothing for 1 s (--silence-timeout): stopped", retryable: true },
    });
    expect(processAlive(pids.cli)).toBe(false);
    expect(processAlive(pids.child)).toBe(false);
    expect(events).toEqual([]); // thread.started and turn.started carry no event of their own
  });

  it("that crashes fails the task as retryable with the last lines of its stderr", async () => {
    const harness = new RunnerHarness();
    const { end } = await harness.run(cliRuntime("claude", bin), assignmentFor({ prompt: "# ENG-10\nFAKE: crash\n" }));
    expect(end).toEqual({
      outcome: "fail",
      body: {
        error:
          "claude exited with code 3: loading config\nconnecting to the model\nfatal: the model connection was reset",
        retryable: true,
      },
    });
  });

  it("is ended when the runner is stopped (a second Ctrl-C), and the task failed as retryable", async () => {
    const harness = new RunnerHarness();
    const pidFile = join(scratch, "shutdown.json");
    const { task, run } = await harness.start(
      cliRuntime("claude", bin),
      assignmentFor({ prompt: `# ENG-11\nFAKE: spawn-child ${pidFile}\n` }),
    );
    const pids = await pidsOf(pidFile);
    await task.stop("shutdown");
    expect((await run).end).toEqual({
      outcome: "fail",
      body: { error: "The runner was stopped before the task ended", retryable: true },
    });
    expect(processAlive(pids.child)).toBe(false);
  });

  it("that cannot be started fails the task as retryable, naming the runtime", async () => {
    const harness = new RunnerHarness();
    const { end } = await harness.run(
      { name: "claude", kind: "claude", command: join(bin, "missing-claude"), tags: [] },
      assignmentFor({ prompt: "# ENG-12\n" }),
    );
    expect(end).toEqual({
      outcome: "fail",
      body: {
        error: expect.stringMatching(/^Could not start claude: spawn .*missing-claude ENOENT$/),
        retryable: true,
      },
    });
  });
});
