// Custom tools from real tools files (TypeScript and Python) through the tool protocol and the official SDK client.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CustomTools, loadCustomTools } from "../../src/tools/custom.ts";
import { staticSource, ToolRegistry } from "../../src/tools/registry.ts";
import type { TestApp } from "../helpers/app.ts";
import { connectClient, postJson, startMcpApp } from "./helpers.ts";

const TS_TOOLS = `
export const tools = [
  [
    { name: "shout", description: "Upper-cases a word", parameters: { type: "object", properties: { word: { type: "string" } }, required: ["word"] } },
    async ({ word }: { word: string }) => ({ shouted: word.toUpperCase() }),
  ],
  [
    { name: "ts_fails", description: "Throws", parameters: { type: "object", properties: {} } },
    () => { throw new Error("typescript tool failed"); },
  ],
];
`;

const PY_TOOLS = `
import os

async def multiply(a, b):
    return {"product": a * b}

def crash():
    os._exit(3)

tools = [
    ({"name": "multiply", "description": "Multiplies two numbers", "parameters": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}}, multiply),
    ({"name": "crash", "description": "Kills its process", "parameters": {"type": "object", "properties": {}}}, crash),
]
`;

const dirs: string[] = [];
const dirWith = (name: string, content: string) => {
  const dir = mkdtempSync(join(tmpdir(), "agent-platform-mcp-tools-"));
  dirs.push(dir);
  writeFileSync(join(dir, name), content);
  return dir;
};

let tsTools: CustomTools;
let pyTools: CustomTools;
let server: TestApp;

beforeAll(async () => {
  tsTools = await loadCustomTools({ cwd: dirWith("tools.ts", TS_TOOLS) });
  pyTools = await loadCustomTools({ cwd: dirWith("tools.py", PY_TOOLS) });
  const registry = new ToolRegistry().addSource(staticSource(tsTools.tools)).addSource(staticSource(pyTools.tools));
  server = await startMcpApp("sqlite", { registry });
});
afterAll(async () => {
  await server?.close();
  await tsTools?.close();
  await pyTools?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe.each([
  ["SSE", (base: string) => new SSEClientTransport(new URL("/sse", base))],
  ["Streamable HTTP", (base: string) => new StreamableHTTPClientTransport(new URL("/mcp", base))],
])("tools files over %s", (_name, makeTransport) => {
  it("lists and calls a TypeScript tool and a Python tool", async () => {
    const client = await connectClient(makeTransport(server.url));
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name).sort();
      expect(names).toEqual(["crash", "multiply", "shout", "ts_fails"]);
      const shouted = await client.callTool({ name: "shout", arguments: { word: "hey" } });
      expect(shouted.structuredContent).toEqual({ shouted: "HEY" });
      const product = await client.callTool({ name: "multiply", arguments: { a: 6, b: 7 } });
      expect(product.structuredContent).toEqual({ product: 42 });
      const failed = await client.callTool({ name: "ts_fails", arguments: {} });
      expect(failed).toMatchObject({ isError: true, content: [{ type: "text", text: "typescript tool failed" }] });
    } finally {
      await client.close();
    }
  });
});

it("a Python tool that kills its process is a tool error; the server and the Python tools keep serving", async () => {
  const crashed = await postJson(server.url, "/messages/", {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "crash", arguments: {} },
  });
  expect(crashed.status).toBe(200);
  expect(crashed.json().result.isError).toBe(true);
  const client = await connectClient(new StreamableHTTPClientTransport(new URL("/mcp", server.url)));
  try {
    const product = await client.callTool({ name: "multiply", arguments: { a: 2, b: 3 } });
    expect(product.structuredContent).toEqual({ product: 6 });
    const shouted = await client.callTool({ name: "shout", arguments: { word: "ok" } });
    expect(shouted.structuredContent).toEqual({ shouted: "OK" });
  } finally {
    await client.close();
  }
});
