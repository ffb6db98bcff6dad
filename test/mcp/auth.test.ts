// Who sees which tools, credentials outside dev, and the DNS-rebinding guard.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Tool, ToolSource } from "../../src/tools/registry.ts";
import { createWorkspaceWithRoles, startTestApp, type TestApp } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";
import { registryWith } from "../helpers/registry.ts";
import { echoTool, insertApiKey, postJson, RawSseStream, rawRequest, whoAmITool } from "./helpers.ts";

const PROD_ENV = { PLATFORM_ENV: "production", PLATFORM_JWT_SECRET: "x".repeat(40) };

/** A workspace-scoped source, like the platform and agent tools: nothing without a workspace. */
const workspaceTool: Tool = {
  name: "workspace_only",
  description: "Scoped to the caller's workspace",
  inputSchema: { type: "object", properties: {} },
  run: async (_args, ctx) => ({ workspaceId: ctx.workspaceId }),
};
const scopedSource: ToolSource = { list: (ctx) => (ctx.workspaceId ? [workspaceTool] : []) };

const listNames = async (url: string, headers: Record<string, string> = {}) => {
  const response = await postJson(url, "/messages/", { jsonrpc: "2.0", id: 1, method: "tools/list" }, headers);
  return { status: response.status, names: response.status === 200 ? toolNames(response.json()) : [] };
};
const toolNames = (body: any): string[] => body.result.tools.map((tool: { name: string }) => tool.name).sort();

describe.each(testDialects)("tool-protocol auth (%s)", (dialect) => {
  let server: TestApp;
  let apiKey: string;
  let workspaceId: string;
  let ownerToken: string;
  let ownerId: string;

  beforeAll(async () => {
    server = await startTestApp(dialect, { registry: registryWith(echoTool, whoAmITool).addSource(scopedSource) });
    const team = await createWorkspaceWithRoles(server.api);
    workspaceId = team.workspaceId;
    ownerToken = team.owner.token;
    ownerId = team.owner.user.id;
    apiKey = await insertApiKey(server.db, workspaceId, ownerId);
  });
  afterAll(async () => server?.close());

  it("without a credential only the custom tools are listed, and workspace tools are not callable", async () => {
    expect(await listNames(server.url)).toEqual({ status: 200, names: ["echo", "whoami"] });
    const call = await postJson(server.url, "/messages/", {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "workspace_only", arguments: {} },
    });
    expect(call.json().error).toEqual({ code: -32602, message: "Invalid params" });
  });

  it("an API key (X-API-Key or Bearer) adds its workspace's tools, which run in that workspace as its creator", async () => {
    const listed = await listNames(server.url, { "x-api-key": apiKey });
    expect(listed.status).toBe(200);
    expect(listed.names).toEqual(expect.arrayContaining(["echo", "whoami", "workspace_only"]));
    const response = await postJson(
      server.url,
      "/mcp",
      { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "whoami", arguments: {} } },
      { authorization: `Bearer ${apiKey}` },
    );
    expect(response.json().result.structuredContent).toEqual({ workspaceId, userId: ownerId });
  });

  it("an SSE session opened with a key runs the posts that carry the same key in the key's scope", async () => {
    const stream = await RawSseStream.open(server.url, { "x-api-key": apiKey });
    try {
      const endpoint = await stream.endpoint();
      const posted = await postJson(
        server.url,
        endpoint,
        { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "workspace_only", arguments: {} } },
        { "x-api-key": apiKey },
      );
      expect(posted.status).toBe(202);
      expect((await stream.reply(4)).result.structuredContent).toEqual({ workspaceId });
    } finally {
      stream.close();
    }
  });

  it("a login token names the user but no workspace: custom tools only", async () => {
    const listed = await listNames(server.url, { authorization: `Bearer ${ownerToken}` });
    expect(listed).toEqual({ status: 200, names: ["echo", "whoami"] });
  });

  it("a bad credential is 401 on every endpoint", async () => {
    expect((await listNames(server.url, { "x-api-key": "ap_not-a-real-key" })).status).toBe(401);
    const mcp = await postJson(
      server.url,
      "/mcp",
      { jsonrpc: "2.0", id: 1, method: "ping" },
      {
        authorization: "Bearer not.a.jwt",
      },
    );
    expect(mcp.status).toBe(401);
    const sse = await rawRequest(server.url, "GET", "/sse", undefined, { "x-api-key": "ap_wrong" });
    expect(sse.status).toBe(401);
    expect(sse.json()).toEqual({ detail: "Invalid API key" });
  });
});

describe("outside PLATFORM_ENV=dev", () => {
  let server: TestApp;
  let apiKey: string;
  beforeAll(async () => {
    server = await startTestApp("sqlite", { env: PROD_ENV, registry: registryWith(echoTool) });
    const team = await createWorkspaceWithRoles(server.api);
    apiKey = await insertApiKey(server.db, team.workspaceId, team.owner.user.id);
  });
  afterAll(async () => server?.close());

  it("a request without a credential is 401 on /mcp, /messages/ and /sse", async () => {
    expect((await postJson(server.url, "/mcp", { jsonrpc: "2.0", id: 1, method: "ping" })).status).toBe(401);
    expect((await postJson(server.url, "/messages/", { jsonrpc: "2.0", id: 1, method: "ping" })).status).toBe(401);
    const sse = await rawRequest(server.url, "GET", "/sse");
    expect(sse.status).toBe(401);
    expect(sse.json().detail).toMatch(/X-API-Key/);
  });

  it("the SDK client with a key works", async () => {
    const client = new Client({ name: "prod-client", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL("/mcp", server.url), {
        requestInit: { headers: { "X-API-Key": apiKey } },
      }),
    );
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("echo");
    } finally {
      await client.close();
    }
  });
});

describe("DNS-rebinding guard on a loopback-bound server", () => {
  let server: TestApp;
  beforeAll(async () => {
    server = await startTestApp("sqlite", { registry: registryWith(echoTool) });
  });
  afterAll(async () => server?.close());

  const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
  const port = () => new URL(server.url).port;

  it("refuses a foreign Host or Origin with 403 on every endpoint", async () => {
    const foreignHost = { host: `attacker.example:${port()}`, "content-type": "application/json" };
    expect((await rawRequest(server.url, "POST", "/mcp", ping, foreignHost)).status).toBe(403);
    expect((await rawRequest(server.url, "POST", "/messages/", ping, foreignHost)).status).toBe(403);
    expect((await rawRequest(server.url, "GET", "/sse", undefined, foreignHost)).status).toBe(403);
    const foreignOrigin = { origin: "http://attacker.example", "content-type": "application/json" };
    const refused = await rawRequest(server.url, "POST", "/mcp", ping, foreignOrigin);
    expect(refused.status).toBe(403);
    expect(refused.json().detail).toMatch(/DNS-rebinding/);
  });

  it("serves loopback names: localhost, 127.0.0.1 and [::1]", async () => {
    for (const host of [`localhost:${port()}`, `127.0.0.1:${port()}`, `[::1]:${port()}`]) {
      const response = await rawRequest(server.url, "POST", "/mcp", ping, {
        host,
        origin: `http://${host}`,
        "content-type": "application/json",
      });
      expect(response.status).toBe(200);
    }
  });
});
