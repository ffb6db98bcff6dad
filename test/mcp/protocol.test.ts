// The JSON-RPC surface over raw HTTP: the seed's errors with the id echoed, direct POST and Streamable HTTP framing.
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestApp } from "../helpers/app.ts";
import { registryWith } from "../helpers/registry.ts";
import { call, postJson, rawRequest, startMcpApp } from "./helpers.ts";

let server: TestApp;
beforeAll(async () => {
  server = await startMcpApp();
});
afterAll(async () => server?.close());

const error = (code: number, message: string) => ({ code, message });

describe("seed JSON-RPC errors on direct POST /messages/", () => {
  it("-32700 Parse error for a body that is not JSON, with id null", async () => {
    const response = await postJson(server.url, "/messages/", '{"jsonrpc":"2.0","id":1,"method":');
    expect(response.status).toBe(200);
    expect(response.json()).toEqual({ jsonrpc: "2.0", id: null, error: error(-32700, "Parse error") });
  });

  it("-32700 also when the body is sent as text/plain, or is empty", async () => {
    const response = await rawRequest(server.url, "POST", "/messages/", "not json", { "content-type": "text/plain" });
    expect(response.json().error).toEqual(error(-32700, "Parse error"));
    const empty = await rawRequest(server.url, "POST", "/messages/", "", { "content-type": "application/json" });
    expect(empty.json()).toEqual({ jsonrpc: "2.0", id: null, error: error(-32700, "Parse error") });
  });

  it("a message sent without any Content-Type (as curl --data-binary may) is still answered", async () => {
    const response = await rawRequest(server.url, "POST", "/messages/", '{"jsonrpc":"2.0","id":5,"method":"ping"}');
    expect(response.json()).toEqual({ jsonrpc: "2.0", id: 5, result: {} });
  });

  it("-32600 Invalid request without jsonrpc 2.0, without a method, or with a bad id type", async () => {
    const wrongVersion = await postJson(server.url, "/messages/", { jsonrpc: "1.0", id: 7, method: "ping" });
    expect(wrongVersion.json()).toEqual({ jsonrpc: "2.0", id: 7, error: error(-32600, "Invalid request") });
    const noMethod = await postJson(server.url, "/messages/", { jsonrpc: "2.0", id: "abc" });
    expect(noMethod.json()).toEqual({ jsonrpc: "2.0", id: "abc", error: error(-32600, "Invalid request") });
    const objectId = await postJson(server.url, "/messages/", { jsonrpc: "2.0", id: { x: 1 }, method: "ping" });
    expect(objectId.json()).toEqual({ jsonrpc: "2.0", id: null, error: error(-32600, "Invalid request") });
    const notAnObject = await postJson(server.url, "/messages/", "42");
    expect(notAnObject.json().error).toEqual(error(-32600, "Invalid request"));
  });

  it("-32600 for a batch (batching was removed from the protocol in 2025-06-18)", async () => {
    const response = await postJson(server.url, "/messages/", [{ jsonrpc: "2.0", id: 1, method: "ping" }]);
    expect(response.json()).toEqual({ jsonrpc: "2.0", id: null, error: error(-32600, "Invalid request") });
  });

  it("-32601 Method not found", async () => {
    const response = await postJson(server.url, "/messages/", { jsonrpc: "2.0", id: 3, method: "resources/list" });
    expect(response.json()).toEqual({ jsonrpc: "2.0", id: 3, error: error(-32601, "Method not found") });
  });

  it("-32602 Invalid params: tools/call without name, with non-object arguments, or naming an unknown tool", async () => {
    const noName = await postJson(server.url, "/messages/", { jsonrpc: "2.0", id: 4, method: "tools/call" });
    expect(noName.json()).toEqual({ jsonrpc: "2.0", id: 4, error: error(-32602, "Invalid params") });
    const badArgs = await postJson(server.url, "/messages/", call(5, "echo", ["hi"]));
    expect(badArgs.json()).toEqual({ jsonrpc: "2.0", id: 5, error: error(-32602, "Invalid params") });
    const unknown = await postJson(server.url, "/messages/", call("six", "no_such_tool", {}));
    expect(unknown.json()).toEqual({ jsonrpc: "2.0", id: "six", error: error(-32602, "Invalid params") });
    const paramsNotObject = await postJson(server.url, "/messages/", {
      jsonrpc: "2.0",
      id: 8,
      method: "tools/list",
      params: [1],
    });
    expect(paramsNotObject.json().error).toEqual(error(-32602, "Invalid params"));
  });

  it("-32603 Internal error when the registry itself fails, id echoed, no detail leaked", async () => {
    const failing = await startMcpApp("sqlite", {
      registry: registryWith().addSource({
        list: () => {
          throw new Error("secret database detail");
        },
      }),
    });
    try {
      const response = await postJson(failing.url, "/messages/", { jsonrpc: "2.0", id: 9, method: "tools/list" });
      expect(response.json()).toEqual({ jsonrpc: "2.0", id: 9, error: error(-32603, "Internal error") });
      expect(response.text).not.toContain("secret");
    } finally {
      await failing.close();
    }
  });
});

describe("direct POST /messages/", () => {
  it("answers a request in the body as application/json", async () => {
    const response = await postJson(server.url, "/messages/", call(1, "echo", { text: "hi" }));
    expect(response.status).toBe(200);
    expect(response.headers["content-type"]).toMatch(/^application\/json/);
    expect(response.json()).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: { content: [{ type: "text", text: '{"echoed":"hi"}' }], structuredContent: { echoed: "hi" } },
    });
  });

  it("answers a notification with 202 and no body", async () => {
    const response = await postJson(server.url, "/messages/", {
      jsonrpc: "2.0",
      method: "notifications/initialized",
    });
    expect(response.status).toBe(202);
    expect(response.text).toBe("");
  });

  it("initialize echoes a supported protocol version and offers the newest for an unknown one", async () => {
    const known = await postJson(server.url, "/messages/", {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2024-11-05", capabilities: {}, clientInfo: { name: "curl", version: "1" } },
    });
    expect(known.json().result).toEqual({
      protocolVersion: "2024-11-05",
      capabilities: { tools: { listChanged: true } },
      serverInfo: { name: "agent-platform", version: expect.any(String) },
    });
    const unknown = await postJson(server.url, "/messages/", {
      jsonrpc: "2.0",
      id: 2,
      method: "initialize",
      params: { protocolVersion: "1999-01-01" },
    });
    expect(unknown.json().result.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
  });

  it("ping answers an empty result; tools/list names each tool with its schema", async () => {
    const ping = await postJson(server.url, "/messages/", { jsonrpc: "2.0", id: 1, method: "ping" });
    expect(ping.json()).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
    const list = await postJson(server.url, "/messages/", { jsonrpc: "2.0", id: 2, method: "tools/list" });
    const echo = list.json().result.tools.find((tool: { name: string }) => tool.name === "echo");
    expect(echo).toEqual({
      name: "echo",
      description: "Returns its text",
      inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    });
  });

  it("a throwing tool and invalid arguments are tool results with isError, and the server keeps serving", async () => {
    const thrown = await postJson(server.url, "/messages/", call(1, "explode", {}));
    expect(thrown.json().result).toEqual({ content: [{ type: "text", text: "the tool blew up" }], isError: true });
    const invalid = await postJson(server.url, "/messages/", call(2, "echo", { text: 42 }));
    expect(invalid.json().result.isError).toBe(true);
    expect(invalid.json().result.content[0].text).toMatch(/Invalid arguments for echo: text must be string/);
    const after = await postJson(server.url, "/messages/", call(3, "echo", { text: "still here" }));
    expect(after.json().result.structuredContent).toEqual({ echoed: "still here" });
  });
});

describe("Streamable HTTP /mcp", () => {
  const headers = { accept: "application/json, text/event-stream" };

  it("answers JSON and hands out a session id on initialize that is accepted back", async () => {
    const init = await postJson(
      server.url,
      "/mcp",
      { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18" } },
      headers,
    );
    expect(init.status).toBe(200);
    expect(init.headers["content-type"]).toMatch(/^application\/json/);
    expect(init.json().result.protocolVersion).toBe("2025-06-18");
    const sessionId = init.headers["mcp-session-id"];
    expect(sessionId).toMatch(/^[0-9a-f]{32}$/);
    const next = await postJson(server.url, "/mcp", call(2, "echo", { text: "x" }), {
      ...headers,
      "mcp-session-id": String(sessionId),
    });
    expect(next.json().result.structuredContent).toEqual({ echoed: "x" });
  });

  it("answers as an event stream when that is all the client accepts", async () => {
    const response = await postJson(server.url, "/mcp", call(3, "echo", { text: "s" }), {
      accept: "text/event-stream",
    });
    expect(response.headers["content-type"]).toMatch(/^text\/event-stream/);
    expect(response.text).toMatch(/^event: message\ndata: \{.*"id":3.*\}\n\n$/);
  });

  it("a notification gets 202; a parse error 400 with -32700; GET 405; DELETE 200", async () => {
    const note = await postJson(server.url, "/mcp", { jsonrpc: "2.0", method: "notifications/initialized" }, headers);
    expect(note.status).toBe(202);
    const broken = await postJson(server.url, "/mcp", "{", headers);
    expect(broken.status).toBe(400);
    expect(broken.json()).toEqual({ jsonrpc: "2.0", id: null, error: error(-32700, "Parse error") });
    expect((await rawRequest(server.url, "GET", "/mcp")).status).toBe(405);
    expect((await rawRequest(server.url, "DELETE", "/mcp")).status).toBe(200);
  });

  it("answers a CORS preflight and exposes Mcp-Session-Id to browser clients", async () => {
    const preflight = await rawRequest(server.url, "OPTIONS", "/mcp", undefined, {
      origin: "http://localhost:6274",
      "access-control-request-method": "POST",
      "access-control-request-headers": "content-type,mcp-session-id,x-api-key",
    });
    expect(preflight.status).toBeLessThan(300);
    expect(preflight.headers["access-control-allow-origin"]).toBe("http://localhost:6274");
    const init = await postJson(
      server.url,
      "/mcp",
      { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18" } },
      { origin: "http://localhost:6274" },
    );
    expect(init.headers["access-control-allow-origin"]).toBe("http://localhost:6274");
    expect(String(init.headers["access-control-expose-headers"])).toMatch(/Mcp-Session-Id/i);
  });
});
