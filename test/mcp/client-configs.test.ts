// The "Connect a client" snippets of docs/tool-protocol.md, run as written: each JSON configuration is started the way its client
// starts it (a command over stdio, or a URL with headers), and each Inspector command line is run. Only the
// placeholders change: the repository path, the key, the server's port and the database.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCustomTools } from "../../src/tools/custom.ts";
import { staticSource, ToolRegistry } from "../../src/tools/registry.ts";
import { createWorkspaceWithRoles, startTestApp, type TestApp } from "../helpers/app.ts";

const root = fileURLToPath(new URL("../../", import.meta.url)).replace(/\/$/, "");
const page = readFileSync(join(root, "docs/tool-protocol.md"), "utf8");
const section = page.slice(page.indexOf("## Connect a client"), page.indexOf("## The SDK client"));
const SLOW = 90_000;

interface ServerEntry {
  type?: string;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  url?: string;
  headers?: Record<string, string>;
}

const fenced = (language: string) =>
  [...section.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, "g"))].map((match) => match[1] ?? "");

let server: TestApp;
let apiKey: string;
let workdir: string;
const custom = await loadCustomTools({ path: join(root, "examples/tools.ts") });

beforeAll(async () => {
  server = await startTestApp("sqlite", { registry: new ToolRegistry().addSource(staticSource(custom.tools)) });
  const team = await createWorkspaceWithRoles(server.api);
  const created = await server.api.post(
    `workspaces/${team.workspaceId}/api-keys`,
    { name: "client-configs" },
    {
      token: team.owner.token,
    },
  );
  apiKey = created.body.key;
  // Clients start stdio servers from a directory of their own.
  workdir = mkdtempSync(join(tmpdir(), "agent-platform-client-"));
});
afterAll(async () => {
  await server?.close();
  await custom.close();
  rmSync(workdir, { recursive: true, force: true });
});

/** The page's text with its placeholders filled in. */
const filled = (text: string) =>
  text
    .replaceAll("/path/to/agent-platform", root)
    .replaceAll("ap_your_key", apiKey)
    .replaceAll("http://127.0.0.1:8000", server.url.replace(/\/$/, ""));

function transportFor(entry: ServerEntry): Transport {
  if (entry.url) {
    // VS Code fills ${input:…} from what the user typed when asked.
    const headers = Object.fromEntries(
      Object.entries(entry.headers ?? {}).map(([name, value]) => [name, value.replace(/\$\{input:[^}]+\}/, apiKey)]),
    );
    return new StreamableHTTPClientTransport(new URL(entry.url), { requestInit: { headers } });
  }
  const env = { ...entry.env };
  if (env.DATABASE_URL) env.DATABASE_URL = server.databaseUrl;
  return new StdioClientTransport({
    command: entry.command === "node" ? process.execPath : (entry.command ?? ""),
    args: entry.args ?? [],
    env: { ...getDefaultEnvironment(), HOME: workdir, ...env },
    // npx finds mcp-remote among this repository's dev dependencies instead of downloading it.
    cwd: entry.command === "npx" ? root : workdir,
    stderr: "ignore",
  });
}

const configs = fenced("json").map((block) => {
  const parsed = JSON.parse(block) as {
    mcpServers?: Record<string, ServerEntry>;
    servers?: Record<string, ServerEntry>;
  };
  return { block, entry: (parsed.mcpServers ?? parsed.servers)?.["agent-platform"] };
});

describe("the client configurations of docs/tool-protocol.md", () => {
  it("has the stdio and remote snippets for Claude Desktop, Cursor and VS Code", () => {
    expect(configs.map(({ entry }) => (entry?.url ? "url" : entry?.command))).toEqual([
      "node",
      "node",
      "url",
      "url",
      "npx",
    ]);
  });

  it.each(configs.map(({ block }, index) => [index + 1, block]))(
    "snippet %i connects, lists the workspace's tools and calls one",
    async (_index, block) => {
      const parsed = JSON.parse(filled(block));
      const entry: ServerEntry = (parsed.mcpServers ?? parsed.servers)["agent-platform"];
      const client = new Client({ name: "client-configs", version: "1.0.0" });
      await client.connect(transportFor(entry));
      try {
        const names = (await client.listTools()).tools.map((tool) => tool.name);
        expect(names).toEqual(expect.arrayContaining(["add_numbers", "create_issue", "list_agents"]));
        const sum = await client.callTool({ name: "add_numbers", arguments: { a: 2, b: 3 } });
        expect(sum.structuredContent).toEqual({ sum: 5 });
      } finally {
        await client.close();
      }
    },
    SLOW,
  );
});

describe("the Inspector command lines of docs/tool-protocol.md (through the Node 20 Inspector CLI)", () => {
  const commands = fenced("sh")
    .flatMap((block) => block.replaceAll("\\\n", " ").split("\n"))
    .filter((line) => line.startsWith("npx @modelcontextprotocol/inspector --cli"));

  it("are there", () => {
    expect(commands).toHaveLength(2);
  });

  it.each(commands)(
    "%s",
    async (command) => {
      const inspector = join(root, "node_modules/@modelcontextprotocol/inspector-cli/build/cli.js");
      const words = shellWords(filled(command)).slice(2); // the Inspector 0.16+ needs Node 22: its 1.0.3 CLI instead
      const args = words.map((word) => (word === "node" ? process.execPath : word));
      const { stdout } = await promisify(execFile)(process.execPath, [inspector, ...args], {
        cwd: join(root, "examples"),
        env: { PATH: process.env.PATH ?? "", HOME: workdir },
      });
      const result = JSON.parse(stdout);
      if (args.includes("tools/list")) {
        expect(result.tools.map((tool: { name: string }) => tool.name)).toContain("add_numbers");
      } else {
        expect(result.structuredContent).toEqual({ sum: 5 });
      }
    },
    SLOW,
  );
});

/** Splits a command line as a POSIX shell would for plain words and double-quoted strings. */
function shellWords(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((match) => match[1] ?? match[2] ?? "");
}
