// The official SDK client over both of its HTTP transports, against the real server.
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestApp } from "../helpers/app.ts";
import { connectClient, startMcpApp } from "./helpers.ts";

let server: TestApp;
beforeAll(async () => {
  server = await startMcpApp();
});
afterAll(async () => server?.close());

const transports: [string, (base: string, headers?: Record<string, string>) => Transport][] = [
  [
    "SSEClientTransport",
    (base, headers) => new SSEClientTransport(new URL("/sse", base), { requestInit: { headers } }),
  ],
  [
    "StreamableHTTPClientTransport",
    (base, headers) => new StreamableHTTPClientTransport(new URL("/mcp", base), { requestInit: { headers } }),
  ],
];

describe.each(transports)("SDK Client over %s", (_name, makeTransport) => {
  it("initializes, lists the tools and calls one", async () => {
    const client = await connectClient(makeTransport(server.url));
    try {
      expect(client.getServerVersion()).toEqual({ name: "agent-platform", version: expect.any(String) });
      expect(client.getServerCapabilities()).toEqual({ tools: { listChanged: true } });
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(["echo", "explode", "whoami"]);
      const result = await client.callTool({ name: "echo", arguments: { text: "hello" } });
      expect(result.structuredContent).toEqual({ echoed: "hello" });
      expect(result.content).toEqual([{ type: "text", text: '{"echoed":"hello"}' }]);
      await client.ping();
    } finally {
      await client.close();
    }
  });

  it("a throwing tool comes back as isError and the session goes on", async () => {
    const client = await connectClient(makeTransport(server.url));
    try {
      const failed = await client.callTool({ name: "explode", arguments: {} });
      expect(failed.isError).toBe(true);
      expect(failed.content).toEqual([{ type: "text", text: "the tool blew up" }]);
      const invalid = await client.callTool({ name: "echo", arguments: { wrong: 1 } });
      expect(invalid.isError).toBe(true);
      const ok = await client.callTool({ name: "echo", arguments: { text: "after" } });
      expect(ok.structuredContent).toEqual({ echoed: "after" });
    } finally {
      await client.close();
    }
  });

  it("an unknown tool is a protocol error the client raises", async () => {
    const client = await connectClient(makeTransport(server.url));
    try {
      await expect(client.callTool({ name: "missing", arguments: {} })).rejects.toThrow(/Invalid params/);
    } finally {
      await client.close();
    }
  });
});

it("the server shuts down while SSE clients are still connected", async () => {
  const app = await startMcpApp();
  const client = await connectClient(new SSEClientTransport(new URL("/sse", app.url)));
  // Closing waits for every open connection: that it returns at all means the server ended the stream itself.
  await app.close();
  await client.close();
});
