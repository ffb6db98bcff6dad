// What an operator reads: every line a command logs is JSON, and each request is one line, streams included.
import { get } from "node:http";
import { afterAll, describe, expect, it } from "vitest";
import { runBin, startBin, stopBins } from "../helpers/bin.ts";

afterAll(stopBins);

const linesOf = (text: string) => text.split("\n").filter((line) => line !== "");

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
    const server = await startBin("serve");
    const url = server.url;

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
      linesOf(server.output().stdout)
        .map((line) => JSON.parse(line) as LogLine)
        .filter((entry) => entry.msg.startsWith("request"));
    // Once the server has stopped, every line it would ever write for these requests is written.
    server.child.kill("SIGINT");
    expect(await server.exited).toBe(0);

    const lines = linesOf(server.output().stdout);
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
    // A new database: the migrations it applied, then where it listens.
    expect(JSON.parse(lines[0] ?? "").msg).toBe("applied migrations");
    expect(JSON.parse(lines[1] ?? "").msg).toMatch(/^agent-platform listening on http:\/\/127\.0\.0\.1:\d+ \(docs /);
    const requests = requestLines();
    expect(requests.map((entry) => [entry.method, entry.url, entry.statusCode])).toEqual(expected);
    expect(new Set(requests.map((entry) => entry.reqId)).size).toBe(expected.length);
    expect(server.output().stdout).not.toMatch(/authorization/i);
  }, 90_000);
});

describe("mcp logs", () => {
  it("keeps stdout for protocol messages and logs JSON lines on stderr only, its start-up line included", async () => {
    const mcp = runBin(["mcp"], { stdin: "pipe", env: { LOG_LEVEL: "info" } });
    mcp.child.stdin?.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" })}\n`);
    await mcp.printed(/\n/, { on: "stdout" });
    mcp.child.stdin?.end();
    expect(await mcp.exited).toBe(0);

    expect(linesOf(mcp.output().stdout).map((line) => JSON.parse(line))).toEqual([
      { jsonrpc: "2.0", id: 1, result: {} },
    ]);
    const logs = linesOf(mcp.output().stderr).map((line) => JSON.parse(line) as LogLine);
    expect(logs.map((entry) => entry.msg)).toEqual(["tool protocol on stdio", "stdin closed"]);
    expect(logs.every((entry) => entry.level === 30)).toBe(true);
  }, 60_000);
});
