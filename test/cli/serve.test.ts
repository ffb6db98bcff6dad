import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ROOT, runBin, startBin, stopBins } from "../helpers/bin.ts";

const dirs: string[] = [];

afterEach(async () => {
  await stopBins();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

// Each test starts the CLI (tsx compiling on the fly): seconds on a busy machine.
describe("agent-platform serve", { timeout: 90_000 }, () => {
  it("starts on an embedded database with JSON lines naming the migrations it applied and the URL, and Ctrl-C lets in-flight requests finish", async () => {
    const server = await startBin("serve");
    const url = server.url;
    const startLines = server
      .output()
      .stdout.trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    // A new database: the migrations it applied, then where it listens.
    expect(startLines.map((line) => line.msg.split(" ")[0])).toEqual(["applied", "agent-platform"]);
    expect(startLines[0].migrations.length).toBeGreaterThan(0);
    expect(startLines[1].msg).toContain(join(server.cwd, "data"));

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
    const badPort = runBin(["serve"], { env: { PORT: "eighty" } });
    expect(await badPort.exited).toBe(1);
    expect(badPort.output().stderr.trim()).toMatch(/^Invalid configuration: PORT [^\n]+$/);

    const weakSecret = runBin(["serve"], { env: { PLATFORM_ENV: "production", PLATFORM_JWT_SECRET: "short" } });
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
    const server = runBin(["serve", "--port", "0", "--tools", join(dir, "tools.py")]);
    expect(await server.exited).toBe(1);
    expect(server.output().stderr).toContain(`${join(dir, "tools.py")}:`);
  });

  it("loads the tools file and says so in the startup line", async () => {
    const server = await startBin("serve", ["--tools", join(ROOT, "examples/tools.ts")]);
    const [line] = await server.printed(/listening on .*\n/);
    expect(line).toMatch(/\d+ tools from .*examples\/tools\.ts/);
  });
});
