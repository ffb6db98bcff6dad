import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { startCallServer } from "../../src/voice/index.ts";
import { type BinProcess, runBin, stopBins } from "../helpers/bin.ts";

const dataDir = mkdtempSync(join(tmpdir(), "voice-cli-"));
afterAll(async () => {
  await stopBins();
  rmSync(dataDir, { recursive: true, force: true });
});

function runCall(args: string[], env: Record<string, string>): BinProcess {
  return runBin(["call", ...args], { env: { DATABASE_URL: `sqlite:${join(dataDir, "calls.db")}`, ...env } });
}

const lines = (text: string) => text.split("\n").filter((line) => line.trim() !== "");

/** The start-up line: a JSON log line on stderr, like every other log line of the call command. */
async function startupLine(run: BinProcess): Promise<string> {
  const [line] = await run.printed(/^\{.*"msg":"Call server running.*\}$/m, { on: "stderr" });
  return (JSON.parse(line) as { msg: string }).msg;
}

// Each test starts the CLI (tsx compiling on the fly): seconds on a busy machine.
describe("agent-platform call", { timeout: 90_000 }, () => {
  it("without VENDOR_API_KEY exits 1 with a one-line message", async () => {
    const run = runCall([], {});
    expect(await run.exited).toBe(1);
    expect(lines(run.output().stderr)).toEqual([
      "VENDOR_API_KEY is not set: the call server needs the realtime provider's API key.",
    ]);
    expect(run.output().stdout).toBe("");
  });

  it("logs its URL as a JSON line, serves, and closes cleanly on Ctrl-C", async () => {
    const run = runCall(["--port", "0"], { VENDOR_API_KEY: "k" });
    const url = /http:\/\/127\.0\.0\.1:\d+/.exec(await startupLine(run))?.[0];
    expect(url).toBeDefined();
    const status = await fetch(`${url}/status`);
    expect(status.status).toBe(200);
    run.child.kill("SIGINT");
    expect(await run.exited).toBe(0);
    expect(run.output().stdout).toBe("");
    for (const line of lines(run.output().stderr)) expect(() => JSON.parse(line)).not.toThrow();
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
    expect(await run.exited).toBe(0);

    const broken = join(dataDir, "broken-tools.ts");
    writeFileSync(broken, "export const tools = [[{ name: 'x' }, () => 1]];\nthrow new Error('boom');\n");
    const failed = runCall(["--port", "0", "--tools", broken], { VENDOR_API_KEY: "k" });
    expect(await failed.exited).toBe(1);
    expect(lines(failed.output().stderr)).toHaveLength(1);
    expect(failed.output().stderr).toContain(broken);
  });

  it("--public with a tunnel token but no network fails fast with a clear message, without leaking the token", async () => {
    const run = runCall(["--public", "--port", "0"], { VENDOR_API_KEY: "k", TUNNEL_AUTH_TOKEN: "tunnel-secret-123" });
    expect(await run.exited).toBe(1);
    const output = lines(run.output().stderr);
    expect(output).toHaveLength(1);
    expect(output[0]).toMatch(
      /^could not open the public tunnel \(ngrok\): .+Check TUNNEL_AUTH_TOKEN and the network\.$/,
    );
    // Fast: it gave up on ngrok's own error, not by waiting out its answer timeout.
    expect(output[0]).not.toContain("no answer from ngrok");
    expect(run.output().stderr + run.output().stdout).not.toContain("tunnel-secret-123");
  });

  it("PUBLIC=true without TUNNEL_AUTH_TOKEN says what is missing", async () => {
    const run = runCall(["--port", "0"], { VENDOR_API_KEY: "k", PUBLIC: "true" });
    expect(await run.exited).toBe(1);
    expect(lines(run.output().stderr)).toEqual([
      "Public mode needs TUNNEL_AUTH_TOKEN (an ngrok authtoken) to open the tunnel.",
    ]);
  });

  it("a bad --port or an unknown option is a usage error (exit 2)", async () => {
    const badPort = runCall(["--port", "eighty"], { VENDOR_API_KEY: "k" });
    expect(await badPort.exited).toBe(2);
    expect(badPort.output().stderr).toContain("--port must be a port number");
    const unknown = runCall(["--loud"], { VENDOR_API_KEY: "k" });
    expect(await unknown.exited).toBe(2);
    expect(unknown.output().stderr).toContain("Usage: agent-platform call");
  });
});

describe("startCallServer from code", () => {
  it("rejects quickly when the tunnel cannot open, and leaves nothing listening", async () => {
    const config = loadConfig({
      VENDOR_API_KEY: "k",
      TUNNEL_AUTH_TOKEN: "tunnel-secret-123",
      DATABASE_URL: `sqlite:${join(dataDir, "code.db")}`,
    });
    const error = await startCallServer({ port: 0, usePublic: true, config, logger: false }).catch((e: Error) => e);
    expect((error as Error).message).toMatch(/could not open the public tunnel \(ngrok\)/);
    // Quickly: on ngrok's own error, not after waiting out its answer timeout.
    expect((error as Error).message).not.toContain("no answer from ngrok");
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
