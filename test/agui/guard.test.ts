// /agui runs tools on the user's machine: foreign pages and bad input are refused before any stream or query.
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";

const seedBody = { threadId: "t", runId: "r", state: { messages: [{ id: "m", role: "user", content: "hi" }] } };

/** A raw request, so the Host header can be what a DNS-rebinding page would send. */
function post(url: string, path: string, body: string, headers: Record<string, string>) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const target = new URL(path, url);
    const req = httpRequest(
      { host: target.hostname, port: target.port, path: target.pathname + target.search, method: "POST", headers },
      (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (chunk) => {
          text += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

describe.each(testDialects)("agent UI guard (%s)", (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(dialect);
  });
  afterAll(() => t.close());

  it("refuses a foreign Origin or Host with 403 (DNS rebinding, cross-site pages)", async () => {
    const json = { "content-type": "application/json" };
    const body = JSON.stringify(seedBody);
    const port = new URL(t.url).port;
    expect((await post(t.url, "/agui", body, { ...json, origin: "https://evil.example" })).status).toBe(403);
    expect((await post(t.url, "/agui", body, { ...json, host: `evil.example:${port}` })).status).toBe(403);
    const preflight = await fetch(`${t.url}/agui`, {
      method: "OPTIONS",
      headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
    });
    expect(preflight.headers.get("access-control-allow-origin")).not.toBe("https://evil.example");
    const local = await post(t.url, "/agui", "{", { ...json, origin: "http://localhost:3000" });
    expect(local.status).toBe(422);
  });

  it("answers NUL characters in the agent id, thread id or content with 422 before streaming", async () => {
    const json = { "content-type": "application/json" };
    const cases = [
      { path: "/agui?agent=%00", body: seedBody },
      { path: "/agui", body: { ...seedBody, forwardedProps: { agentId: "\u0000" }, messages: [] } },
      { path: "/agui", body: { ...seedBody, threadId: "t\u0000" } },
      { path: "/agui", body: { ...seedBody, state: { messages: [{ id: "m", role: "user", content: "a\u0000" }] } } },
    ];
    for (const { path, body } of cases) {
      const response = await post(t.url, path, JSON.stringify(body), json);
      expect(response.status, path).toBe(422);
      expect(response.text).toContain("NUL");
    }
  });
});
