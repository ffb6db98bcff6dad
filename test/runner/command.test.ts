import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../helpers/eventually.ts";
import { listenOnLoopback } from "../helpers/loopback.ts";

const root = new URL("../../", import.meta.url).pathname;
const children: ChildProcess[] = [];
const dirs: string[] = [];

/** `agent-platform runner`, through the CLI. */
function runner(args: string[], env: Record<string, string> = {}) {
  const home = mkdtempSync(join(tmpdir(), "runner-home-"));
  dirs.push(home);
  const entry = [join(root, "bin/agent-platform.js"), "runner"];
  const child = spawn(process.execPath, [...entry, ...args], {
    cwd: root,
    env: { PATH: "/usr/bin:/bin", HOME: home, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, exited, output: () => ({ stdout, stderr }), home };
}

afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

// Each case starts the CLI (tsx compiling on the fly): seconds on a busy machine.
describe("agent-platform runner", { timeout: 90_000 }, () => {
  it("explains what is wrong with its options, with the usage, and exits 2", async () => {
    const [noUrl, noToken, badMax, nothing] = [
      runner([]),
      runner(["--url", "http://127.0.0.1:1"]),
      runner(["--url", "http://127.0.0.1:1", "--token", "apr_x", "--max-tasks", "50"]),
      runner(["--url", "http://127.0.0.1:1", "--token", "apr_x"]),
    ];
    expect(await Promise.all([noUrl, noToken, badMax, nothing].map((run) => run.exited))).toEqual([2, 2, 2, 2]);
    expect(noUrl.output().stderr).toMatch(
      /^agent-platform: --url is required\n\nUsage: agent-platform runner \[options\]/,
    );
    expect(noToken.output().stderr).toContain("A runner token is needed: --token or AGENT_PLATFORM_RUNNER_TOKEN");
    expect(badMax.output().stderr).toContain("--max-tasks 50: expected a whole number from 1 to 20");
    expect(nothing.output().stderr.trim()).toBe(
      "No agent CLI found on PATH (claude, codex, opencode, gemini) and no --runtime name=command given",
    );
  });

  it("keeps trying a server that cannot be reached, saying so once, and Ctrl-C stops it cleanly", async () => {
    // A port that refuses connections: bound, then closed.
    const server = createServer();
    const port = await listenOnLoopback(server);
    await new Promise((resolve) => server.close(resolve));

    const script = join(tmpdir(), `runner-agent-${process.pid}.sh`);
    writeFileSync(script, "#!/bin/sh\ncat\n");
    chmodSync(script, 0o755);
    const started = runner(["--url", `http://127.0.0.1:${port}`, "--runtime", `echo=${script}`, "--name", "laptop"], {
      AGENT_PLATFORM_RUNNER_TOKEN: "apr_from_the_environment",
    });
    await eventually(() => (started.output().stderr.includes("The server cannot be reached") ? true : undefined));
    started.child.kill("SIGINT");
    expect(await started.exited).toBe(0);
    expect(started.output().stderr.match(/cannot be reached/g)).toHaveLength(1);
    // The runner id is chosen once and kept in the state folder.
    const state = join(started.home, ".agent-platform", "runner", "runner.json");
    expect(existsSync(state)).toBe(true);
    expect(JSON.parse(readFileSync(state, "utf8")).runner_id).toMatch(/^[0-9a-f-]{36}$/);
    rmSync(script, { force: true });
  });
});
