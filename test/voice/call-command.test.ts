import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { startCallServer } from "../../src/voice/index.ts";

const cli = new URL("../../bin/agent-platform.js", import.meta.url).pathname;
const dataDir = mkdtempSync(join(tmpdir(), "voice-cli-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

interface Run {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  exit: Promise<number | null>;
}

function runCall(args: string[], env: Record<string, string>): Run {
  const child = spawn(process.execPath, [cli, "call", ...args], {
    env: { PATH: process.env.PATH ?? "", DATABASE_URL: `sqlite:${join(dataDir, "calls.db")}`, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const run: Run = {
    child,
    stdout: "",
    stderr: "",
    exit: new Promise((resolve) => child.on("exit", (code) => resolve(code))),
  };
  child.stdout!.on("data", (chunk: Buffer) => {
    run.stdout += chunk.toString();
  });
  child.stderr!.on("data", (chunk: Buffer) => {
    run.stderr += chunk.toString();
  });
  return run;
}

const lines = (text: string) => text.split("\n").filter((line) => line.trim() !== "");

/** The start-up line: a JSON log line on stderr, like every other log line of the call command. */
async function startupLine(run: Run): Promise<string> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const entries = lines(run.stderr).map((line) => JSON.parse(line) as { msg: string });
    const running = entries.find((entry) => entry.msg.startsWith("Call server running"));
    if (running) return running.msg;
    if (Date.now() > deadline) throw new Error(`no start-up line in ${run.stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// Each test starts the CLI (tsx compiling on the fly): seconds on a busy machine.
describe("agent-platform call", { timeout: 90_000 }, () => {
  it("without VENDOR_API_KEY exits 1 with a one-line message", async () => {
    const run = runCall([], {});
    expect(await run.exit).toBe(1);
    expect(lines(run.stderr)).toEqual([
      "VENDOR_API_KEY is not set: the call server needs the realtime provider's API key.",
    ]);
    expect(run.stdout).toBe("");
  });

  it("logs its URL as a JSON line, serves, and closes cleanly on Ctrl-C", async () => {
    const run = runCall(["--port", "0"], { VENDOR_API_KEY: "k" });
    const url = /http:\/\/127\.0\.0\.1:\d+/.exec(await startupLine(run))?.[0];
    expect(url).toBeDefined();
    const status = await fetch(`${url}/status`);
    expect(status.status).toBe(200);
    run.child.kill("SIGINT");
    expect(await run.exit).toBe(0);
    expect(run.stdout).toBe("");
    for (const line of lines(run.stderr)) expect(() => JSON.parse(line)).not.toThrow();
  });

  it("--tools loads the file and says so in its start-up line; a file that does not load stops it naming the file", async () => {
    const good = join(dataDir, "good-tools.py");
    writeFileSync(
      good,
      'def ping():\n    return "pong"\n\ntools = [({"name": "ping", "parameters": {"type": "object"}}, ping)]\n',
    );
    const run = runCall(["--port", "0", "--tools", good], { VENDOR_API_KEY: "k" });
    expect(await startupLine(run)).toContain(`1 tool from ${good}`);
    run.child.kill("SIGINT");
    expect(await run.exit).toBe(0);

    const broken = join(dataDir, "broken-tools.ts");
    writeFileSync(broken, "export const tools = [[{ name: 'x' }, () => 1]];\nthrow new Error('boom');\n");
    const failed = runCall(["--port", "0", "--tools", broken], { VENDOR_API_KEY: "k" });
    expect(await failed.exit).toBe(1);
    expect(lines(failed.stderr)).toHaveLength(1);
    expect(failed.stderr).toContain(broken);
  });

  it("--public with a tunnel token but no network fails fast with a clear message, without leaking the token", async () => {
    const started = Date.now();
    const run = runCall(["--public", "--port", "0"], { VENDOR_API_KEY: "k", TUNNEL_AUTH_TOKEN: "tunnel-secret-123" });
    expect(await run.exit).toBe(1);
    expect(Date.now() - started).toBeLessThan(15_000);
    const output = lines(run.stderr);
    expect(output).toHaveLength(1);
    expect(output[0]).toMatch(
      /^could not open the public tunnel \(ngrok\): .+Check TUNNEL_AUTH_TOKEN and the network\.$/,
    );
    expect(run.stderr + run.stdout).not.toContain("tunnel-secret-123");
  });

  it("PUBLIC=true without TUNNEL_AUTH_TOKEN says what is missing", async () => {
    const run = runCall(["--port", "0"], { VENDOR_API_KEY: "k", PUBLIC: "true" });
    expect(await run.exit).toBe(1);
    expect(lines(run.stderr)).toEqual(["Public mode needs TUNNEL_AUTH_TOKEN (an ngrok authtoken) to open the tunnel."]);
  });

  it("a bad --port or an unknown option is a usage error (exit 2)", async () => {
    const badPort = runCall(["--port", "eighty"], { VENDOR_API_KEY: "k" });
    expect(await badPort.exit).toBe(2);
    expect(badPort.stderr).toContain("--port must be a port number");
    const unknown = runCall(["--loud"], { VENDOR_API_KEY: "k" });
    expect(await unknown.exit).toBe(2);
    expect(unknown.stderr).toContain("Usage: agent-platform call");
  });
});

describe("startCallServer from code", () => {
  it("rejects quickly when the tunnel cannot open, and leaves nothing listening", async () => {
    const config = loadConfig({
      VENDOR_API_KEY: "k",
      TUNNEL_AUTH_TOKEN: "tunnel-secret-123",
      DATABASE_URL: `sqlite:${join(dataDir, "code.db")}`,
    });
    const started = Date.now();
    await expect(startCallServer({ port: 0, usePublic: true, config, logger: false })).rejects.toThrow(
      /could not open the public tunnel \(ngrok\)/,
    );
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it("without usePublic resolves to its local URL and no public URL", async () => {
    const config = loadConfig({ VENDOR_API_KEY: "k", DATABASE_URL: `sqlite:${join(dataDir, "code.db")}` });
    const server = await startCallServer({ port: 0, usePublic: false, config, logger: false });
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(server.publicUrl).toBeUndefined();
      expect((await fetch(`${server.url}/status`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
