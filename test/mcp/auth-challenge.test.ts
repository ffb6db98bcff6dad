// A refused tool-protocol caller is told why: the 401's WWW-Authenticate challenge, the SDK client's error, and
// mcp-remote's output name the real reason (a wrong key used to end in mcp-remote's "405").
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspaceWithRoles, startTestApp, type TestApp } from "../helpers/app.ts";
import { registryWith } from "../helpers/registry.ts";
import { echoTool, insertApiKey, postJson, RawSseStream, rawRequest } from "./helpers.ts";

const PROD_ENV = { PLATFORM_ENV: "production", PLATFORM_JWT_SECRET: "x".repeat(40) };
const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
const INVALID_KEY = 'Bearer realm="agent-platform", error="invalid_token", error_description="Invalid API key"';

let server: TestApp;
let apiKey: string;
beforeAll(async () => {
  server = await startTestApp("sqlite", { env: PROD_ENV, registry: registryWith(echoTool) });
  const team = await createWorkspaceWithRoles(server.api);
  apiKey = await insertApiKey(server.db, team.workspaceId, team.owner.user.id);
});
afterAll(async () => server?.close());

describe("the 401 challenge", () => {
  it("a wrong key is 401 with error=invalid_token and the reason, on /mcp, /sse and /messages/", async () => {
    const wrong = { "x-api-key": "ap_wrong" };
    const responses = [
      await postJson(server.url, "/mcp", ping, wrong),
      await rawRequest(server.url, "GET", "/mcp", undefined, wrong),
      await rawRequest(server.url, "GET", "/sse", undefined, wrong),
      await postJson(server.url, "/messages/", ping, wrong),
      await postJson(server.url, `/messages/?session_id=${"0".repeat(32)}`, ping, wrong),
    ];
    for (const response of responses) {
      expect(response.status).toBe(401);
      expect(response.headers["www-authenticate"]).toBe(INVALID_KEY);
      expect(response.json()).toEqual({ detail: "Invalid API key" });
    }
  });

  it("a browser client (the Inspector's page) may read the challenge", async () => {
    const response = await postJson(server.url, "/mcp", ping, {
      "x-api-key": "ap_wrong",
      origin: "http://localhost:6274",
    });
    expect(response.status).toBe(401);
    expect(String(response.headers["access-control-expose-headers"])).toMatch(/WWW-Authenticate/i);
  });

  it("a bad token or a malformed header names its own reason", async () => {
    const token = await postJson(server.url, "/mcp", ping, { authorization: "Bearer not.a.jwt" });
    expect(token.headers["www-authenticate"]).toBe(
      'Bearer realm="agent-platform", error="invalid_token", error_description="Invalid or expired token"',
    );
    const format = await fetch(new URL("/mcp", server.url), {
      method: "POST",
      headers: { authorization: "Basic dXNlcjpwdw==", "content-type": "application/json" },
      body: JSON.stringify(ping),
    });
    expect(format.status).toBe(401);
    expect(format.headers.get("www-authenticate")).toMatch(
      /error="invalid_token", error_description="Invalid Authorization/,
    );
  });

  it("a missing credential gets the bare challenge (RFC 6750: no error code) and a body that says what to send", async () => {
    const response = await fetch(new URL("/mcp", server.url), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(ping),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe('Bearer realm="agent-platform"');
    expect(((await response.json()) as { detail: string }).detail).toMatch(/X-API-Key/);
  });

  it("a session post with a wrong key is 401 with the challenge, whoever opened the session", async () => {
    const stream = await RawSseStream.open(server.url, { "x-api-key": apiKey });
    try {
      const posted = await postJson(server.url, await stream.endpoint(), ping, { "x-api-key": "ap_wrong" });
      expect(posted.status).toBe(401);
      expect(posted.headers["www-authenticate"]).toBe(INVALID_KEY);
    } finally {
      stream.close();
    }
  });

  it("OAuth client registration, which remote clients try after a 401, is refused with the credential's problem", async () => {
    const registration = await postJson(
      server.url,
      "/register",
      { redirect_uris: ["http://localhost/cb"] },
      {
        "x-api-key": "ap_wrong",
      },
    );
    expect(registration.status).toBe(400);
    expect(registration.json()).toEqual({
      error: "invalid_client_metadata",
      error_description: expect.stringMatching(/no OAuth sign-in.*refused: Invalid API key$/),
    });
    const none = await postJson(server.url, "/register", {});
    expect(none.json().error_description).toMatch(/no credential was sent$/);
  });
});

describe("the SDK client with a wrong key", () => {
  const connect = (transport: StreamableHTTPClientTransport | SSEClientTransport) =>
    new Client({ name: "wrong-key", version: "1.0.0" }).connect(transport);

  it("StreamableHTTPClientTransport reports 401 and the reason", async () => {
    const transport = new StreamableHTTPClientTransport(new URL("/mcp", server.url), {
      requestInit: { headers: { "X-API-Key": "ap_wrong" } },
    });
    const failure = await connect(transport).catch((error) => error);
    expect(failure.code).toBe(401);
    expect(failure.message).toContain("Invalid API key");
  });

  it("SSEClientTransport reports 401 (its event source hands over the status only), not 405", async () => {
    const transport = new SSEClientTransport(new URL("/sse", server.url), {
      requestInit: { headers: { "X-API-Key": "ap_wrong" } },
    });
    const failure = await connect(transport).catch((error) => error);
    expect(failure.code).toBe(401);
    expect(failure.message).toContain("401");
  });
});

describe("mcp-remote (the stdio bridge Claude Desktop uses for remote servers)", () => {
  const proxy = fileURLToPath(new URL("../../node_modules/mcp-remote/dist/proxy.js", import.meta.url));
  let home: string;
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), "mcp-remote-home-"));
  });
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  function bridge(key: string) {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [proxy, new URL("/mcp", server.url).href, "--header", `X-API-Key:${key}`],
      env: { ...getDefaultEnvironment(), HOME: home },
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (chunk) => {
      stderr += chunk;
    });
    return { transport, stderr: () => stderr };
  }

  it("with a wrong key says the key was refused and why, not 405", async () => {
    const { transport, stderr } = bridge("ap_wrong");
    const client = new Client({ name: "via-mcp-remote", version: "1.0.0" });
    await expect(client.connect(transport)).rejects.toThrow();
    await client.close();
    expect(stderr()).toContain("the credential sent was refused: Invalid API key");
    expect(stderr()).not.toMatch(/\b405\b/);
  }, 60_000);

  it("with the key, lists and calls the tools", async () => {
    const { transport } = bridge(apiKey);
    const client = new Client({ name: "via-mcp-remote", version: "1.0.0" });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("create_issue");
      expect((await client.callTool({ name: "echo", arguments: { text: "bridged" } })).structuredContent).toEqual({
        echoed: "bridged",
      });
    } finally {
      await client.close();
    }
  }, 60_000);
});
