// What an operator reads: every line a command logs is JSON, and each request is one line, streams included.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { get } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const cli = new URL("../../bin/agent-platform.js", import.meta.url).pathname;
const dataDir = mkdtempSync(join(tmpdir(), "agent-platform-logs-"));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

function start(args: string[], stdin: "ignore" | "pipe" = "ignore") {
  const child = spawn(process.execPath, [cli, ...args], {
    cwd: dataDir,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: "info" },
    stdio: [stdin, "pipe", "pipe"],
  });
  children.push(child);
  const output = { stdout: "", stderr: "" };
  child.stdout?.on("data", (chunk) => {
    output.stdout += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output.stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  return { child, output, exited };
}

const linesOf = (text: string) => text.split("\n").filter((line) => line !== "");

async function waitFor<T>(check: () => T | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface LogLine {
  level: number;
  msg: string;
  reqId?: string;
  method?: string;
  url?: string;
  statusCode?: number;
}

describe("serve logs", () => {
  it("starts with one JSON line and logs each request once, /agui and event streams included", async () => {
    const server = start(["serve", "--port", "0"]);
    const url = await waitFor(() => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(server.output.stdout)?.[1]);

    expect((await fetch(`${url}/api/v1/auth/me`)).status).toBe(401);
    expect((await fetch(`${url}/health`)).status).toBe(200);
    expect((await fetch(`${url}/api/v1/workspaces/%zz`)).status).toBe(400);
    // No model is configured: the run ends at once with run_error, after the stream started.
    const agui = await fetch(`${url}/agui`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        threadId: "t1",
        runId: "r1",
        state: { messages: [{ id: "m1", role: "user", content: "Hi" }] },
      }),
    });
    expect(await agui.text()).toContain("run_error");
    const streamType = await new Promise((resolve, reject) => {
      const sse = get(`${url}/sse`, (response) => {
        resolve(response.headers["content-type"]);
        sse.destroy(); // the client leaves: the stream ends and is logged then
      });
      sse.on("error", reject);
    });
    expect(streamType).toBe("text/event-stream");

    const expected = [
      ["GET", "/api/v1/auth/me", 401],
      ["GET", "/health", 200],
      ["GET", "/api/v1/workspaces/%zz", 400],
      ["POST", "/agui", 200],
      ["GET", "/sse", 200],
    ];
    const requestLines = () =>
      linesOf(server.output.stdout)
        .map((line) => JSON.parse(line) as LogLine)
        .filter((entry) => entry.msg.startsWith("request"));
    await waitFor(() => (requestLines().length >= expected.length ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 300)); // a second line for any request would come by now

    const lines = linesOf(server.output.stdout);
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
    // A new database: the migrations it applied, then where it listens.
    expect(JSON.parse(lines[0] ?? "").msg).toBe("applied migrations");
    expect(JSON.parse(lines[1] ?? "").msg).toMatch(/^agent-platform listening on http:\/\/127\.0\.0\.1:\d+ \(docs /);
    const requests = requestLines();
    expect(requests.map((entry) => [entry.method, entry.url, entry.statusCode])).toEqual(expected);
    expect(new Set(requests.map((entry) => entry.reqId)).size).toBe(expected.length);
    expect(server.output.stdout).not.toMatch(/authorization/i);

    server.child.kill("SIGINT");
    expect(await server.exited).toBe(0);
    for (const line of linesOf(server.output.stdout)) expect(() => JSON.parse(line), line).not.toThrow();
  }, 90_000);
});

describe("mcp logs", () => {
  it("keeps stdout for protocol messages and logs JSON lines on stderr only, its start-up line included", async () => {
    const mcp = start(["mcp"], "pipe");
    mcp.child.stdin?.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" })}\n`);
    await waitFor(() => (mcp.output.stdout.includes("\n") ? true : undefined));
    mcp.child.stdin?.end();
    expect(await mcp.exited).toBe(0);

    expect(linesOf(mcp.output.stdout).map((line) => JSON.parse(line))).toEqual([{ jsonrpc: "2.0", id: 1, result: {} }]);
    const logs = linesOf(mcp.output.stderr).map((line) => JSON.parse(line) as LogLine);
    expect(logs.map((entry) => entry.msg)).toEqual(["tool protocol on stdio", "stdin closed"]);
    expect(logs.every((entry) => entry.level === 30)).toBe(true);
  }, 60_000);
});
