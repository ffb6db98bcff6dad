import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const root = new URL("../../", import.meta.url).pathname;
const children: ChildProcess[] = [];
const dirs: string[] = [];

function run(args: string[], env: Record<string, string> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), "agent-platform-cli-"));
  dirs.push(dataDir);
  const child = spawn(process.execPath, [join(root, "bin/agent-platform.js"), ...args], {
    cwd: dataDir,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: "silent", ...env },
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
  const output = () => ({ stdout, stderr });
  return { child, exited, output, dataDir };
}

async function waitFor<T>(check: () => T | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

// Each test starts the CLI (tsx compiling on the fly): seconds on a busy machine.
describe("agent-platform serve", { timeout: 90_000 }, () => {
  it("starts on an embedded database with JSON lines naming the migrations it applied and the URL, and Ctrl-C lets in-flight requests finish", async () => {
    const server = run(["serve", "--port", "0"], { LOG_LEVEL: "info" });
    const url = await waitFor(() => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(server.output().stdout)?.[1]);
    const startLines = server
      .output()
      .stdout.trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    // A new database: the migrations it applied, then where it listens.
    expect(startLines.map((line) => line.msg.split(" ")[0])).toEqual(["applied", "agent-platform"]);
    expect(startLines[0].migrations.length).toBeGreaterThan(0);
    expect(startLines[1].msg).toContain(join(server.dataDir, "data"));

    // bcrypt at cost 12 keeps this request in flight while the server is asked to stop.
    const registering = fetch(`${url}/api/v1/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "late@example.com", password: "long enough" }),
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    server.child.kill("SIGINT");
    expect((await registering).status).toBe(201);
    expect(await server.exited).toBe(0);
  });

  it("refuses to start with one clear line when a setting is bad", async () => {
    const badPort = run(["serve"], { PORT: "eighty" });
    expect(await badPort.exited).toBe(1);
    expect(badPort.output().stderr.trim()).toMatch(/^Invalid configuration: PORT [^\n]+$/);

    const weakSecret = run(["serve"], { PLATFORM_ENV: "production", PLATFORM_JWT_SECRET: "short" });
    expect(await weakSecret.exited).toBe(1);
    expect(weakSecret.output().stderr.trim()).toMatch(
      /^Invalid configuration: PLATFORM_JWT_SECRET must be at least 32 bytes/,
    );
  });
});

describe("agent-platform serve --tools", { timeout: 90_000 }, () => {
  it("names the tools file and line when it does not load, and does not start", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agent-platform-tools-"));
    dirs.push(dir);
    writeFileSync(join(dir, "tools.py"), "tools = [\n  (  # unclosed\n");
    const server = run(["serve", "--port", "0", "--tools", join(dir, "tools.py")]);
    expect(await server.exited).toBe(1);
    expect(server.output().stderr).toContain(`${join(dir, "tools.py")}:`);
  });

  it("loads the tools file and says so in the startup line", async () => {
    const server = run(["serve", "--port", "0", "--tools", join(root, "examples/tools.ts")], { LOG_LEVEL: "info" });
    const line = await waitFor(() => /listening on .*\n/.exec(server.output().stdout)?.[0]);
    expect(line).toMatch(/\d+ tools from .*examples\/tools\.ts/);
  });
});
