// A small MCP server an agent can use as tools: the release notes of a made-up product, built with the official MCP
// SDK. Over stdio by default (an agent's `{"name": "notes", "command": ..., "args": [...]}` starts it), or Streamable
// HTTP with `--port N` (then `{"name": "notes", "url": "http://127.0.0.1:N/mcp"}`):
//
//   npx tsx examples/mcp-server.ts              # stdio
//   npx tsx examples/mcp-server.ts --port 3001  # http://127.0.0.1:3001/mcp
import { createServer } from "node:http";
import { parseArgs } from "node:util";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

const RELEASES: Record<string, string> = {
  "2.3.0": "Dark mode. Faster issue search. Fixed: login on Safari did nothing.",
  "2.2.1": "Fixed: exports of more than 10,000 rows were cut short.",
  "2.2.0": "Webhooks. API keys per workspace. Fixed: comments lost their line breaks.",
};

function releaseNotesServer(): McpServer {
  const server = new McpServer({ name: "release-notes", version: "1.0.0" });
  server.registerTool(
    "list_releases",
    { description: "The released versions, newest first", inputSchema: {} },
    async () => ({ content: [{ type: "text", text: Object.keys(RELEASES).join(", ") }] }),
  );
  server.registerTool(
    "search_notes",
    {
      description: "Release notes mentioning a word (case-insensitive), with their versions",
      inputSchema: { query: z.string().min(1).describe("A word to look for, e.g. Safari") },
    },
    async ({ query }) => {
      const hits = Object.entries(RELEASES).filter(([, notes]) => notes.toLowerCase().includes(query.toLowerCase()));
      const text = hits.length
        ? hits.map(([version, notes]) => `${version}: ${notes}`).join("\n")
        : "No release mentions it.";
      return { content: [{ type: "text", text }] };
    },
  );
  return server;
}

const { values } = parseArgs({ options: { port: { type: "string" } } });
if (values.port === undefined) {
  await releaseNotesServer().connect(new StdioServerTransport());
} else {
  // Stateless: a fresh server and transport for each request.
  const http = createServer(async (req, res) => {
    if (req.url !== "/mcp") {
      res.writeHead(404).end();
      return;
    }
    const server = releaseNotesServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  http.listen(Number(values.port), "127.0.0.1", () => {
    const address = http.address();
    const port = typeof address === "object" && address ? address.port : values.port;
    console.log(`release-notes MCP server at http://127.0.0.1:${port}/mcp`);
  });
}
