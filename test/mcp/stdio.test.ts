// `agent-platform mcp`: the real bin over stdio, driven by the official SDK client, by hand, and by the Inspector CLI.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspaceWithRoles, startTestApp, type TestApp, type WorkspaceWithRoles } from "../helpers/app.ts";
import { BIN, ROOT, runBin } from "../helpers/bin.ts";
import { testDialects } from "../helpers/databases.ts";

const SLOW = 90_000; // each case starts the bin (TypeScript through tsx) on a shared, loaded machine

let dir: string;
let toolsFile: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "agent-platform-stdio-"));
  toolsFile = join(dir, "tools.ts");
  // Both prints would corrupt the protocol if they reached stdout.
  writeFileSync(
    toolsFile,
    `console.log("loading the tools file");
export const tools = [
  [
    {
      name: "shout",
      description: "Upper-cases its text",
      parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    },
    async ({ text }: { text: string }) => {
      console.log("shouting", text);
      return { shouted: text.toUpperCase() };
    },
  ],
];
`,
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function stdioTransport(args: string[], env: Record<string, string> = {}): StdioClientTransport {
  return new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "mcp", ...args],
    cwd: dir,
    env: { ...getDefaultEnvironment(), ...env },
    stderr: "pipe",
  });
}

/** Connects the SDK client; every error the client reports (e.g. a stdout line that is not JSON-RPC) is kept. */
async function connect(transport: StdioClientTransport) {
  const client = new Client({ name: "stdio-test", version: "1.0.0" });
  const errors: unknown[] = [];
  client.onerror = (error) => errors.push(error);
  let stderr = "";
  transport.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  await client.connect(transport);
  return { client, errors, stderr: () => stderr };
}

const names = (tools: { name: string }[]) => tools.map((tool) => tool.name).sort();

interface Exited {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the bin with these lines on stdin, then closes stdin and waits for the process to end by itself. */
async function runWithInput(args: string[], lines: string[], env: Record<string, string> = {}): Promise<Exited> {
  const run = runBin(["mcp", ...args], { cwd: dir, env, stdin: "pipe" });
  run.child.stdin?.end(lines.map((line) => `${line}\n`).join(""));
  const code = await run.exited;
  return { code, ...run.output() };
}

const jsonLines = (text: string) =>
  text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line));

const initialize = (id: number) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  });

describe("agent-platform mcp with custom tools only", () => {
  it(
    "the SDK's StdioClientTransport initializes, lists and calls a custom tool; logs are JSON lines on stderr",
    async () => {
      const { client, errors, stderr } = await connect(stdioTransport(["--tools", toolsFile]));
      try {
        expect(client.getServerVersion()).toEqual({ name: "agent-platform", version: expect.any(String) });
        expect(names((await client.listTools()).tools)).toEqual(["shout"]);
        const result = await client.callTool({ name: "shout", arguments: { text: "hello" } });
        expect(result.structuredContent).toEqual({ shouted: "HELLO" });
        await client.ping();
      } finally {
        await client.close();
      }
      expect(errors).toEqual([]);
      expect(stderr()).toContain("shouting hello");
      const logLine = stderr()
        .split("\n")
        .find((line) => line.startsWith("{"));
      expect(JSON.parse(logLine ?? "")).toMatchObject({ level: 30, msg: "tool protocol on stdio", tools: 1 });
    },
    SLOW,
  );

  it(
    "stdout carries only JSON-RPC answers, and the process exits 0 once stdin closes",
    async () => {
      const exited = await runWithInput(
        ["--tools", toolsFile],
        [
          initialize(1),
          JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
          JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
          JSON.stringify({
            jsonrpc: "2.0",
            id: 3,
            method: "tools/call",
            params: { name: "shout", arguments: { text: "a" } },
          }),
          "not json",
          JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "missing" } }),
        ],
      );
      expect(exited.code).toBe(0);
      const answers = jsonLines(exited.stdout);
      expect(answers.every((answer) => answer.jsonrpc === "2.0")).toBe(true);
      expect(answers.map((answer) => answer.id).sort()).toEqual([1, 2, 3, 4, null].sort());
      expect(answers.find((answer) => answer.id === 3).result.structuredContent).toEqual({ shouted: "A" });
      expect(answers.find((answer) => answer.id === null).error.code).toBe(-32700);
      expect(answers.find((answer) => answer.id === 4).error.code).toBe(-32602);
      expect(exited.stderr).toContain("loading the tools file");
    },
    SLOW,
  );

  it(
    "a bad setting stops the start with one line on stderr and nothing on stdout",
    async () => {
      const exited = await runWithInput([], [initialize(1)], { AGENT_PLATFORM_API_KEY: "not-a-key" });
      expect(exited.code).toBe(1);
      expect(exited.stdout).toBe("");
      expect(exited.stderr.trim()).toMatch(
        /^Invalid configuration: AGENT_PLATFORM_API_KEY must be a workspace API key/,
      );
    },
    SLOW,
  );
});

describe.each(testDialects)("agent-platform mcp on a workspace's database (%s)", (dialect) => {
  let server: TestApp;
  let team: WorkspaceWithRoles;
  let apiKey: string;

  beforeAll(async () => {
    server = await startTestApp(dialect);
    team = await createWorkspaceWithRoles(server.api);
    const created = await server.api.post(
      `workspaces/${team.workspaceId}/api-keys`,
      { name: "stdio" },
      { token: team.admin.token },
    );
    apiKey = created.body.key;
  });
  afterAll(async () => server?.close());

  const issuesTitled = (title: string) =>
    server.db
      .selectFrom("issues")
      .select(["workspace_id", "creator_type", "creator_id"])
      .where("title", "=", title)
      .execute();

  it(
    "AGENT_PLATFORM_API_KEY adds the workspace's platform and agent tools, which act as the key's creator",
    async () => {
      const { client, errors } = await connect(
        stdioTransport(["--tools", toolsFile], { DATABASE_URL: server.databaseUrl, AGENT_PLATFORM_API_KEY: apiKey }),
      );
      try {
        expect(names((await client.listTools()).tools)).toEqual(
          expect.arrayContaining(["shout", "create_issue", "list_issues", "add_comment", "list_agents"]),
        );
        const created = await client.callTool({ name: "create_issue", arguments: { title: "Filed over stdio" } });
        expect(created.isError).toBeUndefined();
      } finally {
        await client.close();
      }
      expect(errors).toEqual([]);
      expect(await issuesTitled("Filed over stdio")).toEqual([
        { workspace_id: team.workspaceId, creator_type: "member", creator_id: team.admin.user.id },
      ]);
    },
    SLOW,
  );

  it(
    "--workspace ID without a key acts as the workspace's owner",
    async () => {
      const { client } = await connect(
        stdioTransport(["--workspace", team.workspaceId], { DATABASE_URL: server.databaseUrl }),
      );
      try {
        const created = await client.callTool({ name: "create_issue", arguments: { title: "Filed by the owner" } });
        expect(created.isError).toBeUndefined();
      } finally {
        await client.close();
      }
      expect(await issuesTitled("Filed by the owner")).toEqual([
        { workspace_id: team.workspaceId, creator_type: "member", creator_id: team.owner.user.id },
      ]);
    },
    SLOW,
  );

  it(
    "a key the database does not know, or a workspace that is not there, stops the start with one line",
    async () => {
      const badKey = await runWithInput([], [initialize(1)], {
        DATABASE_URL: server.databaseUrl,
        AGENT_PLATFORM_API_KEY: "ap_unknown",
      });
      expect(badKey.code).toBe(1);
      expect(badKey.stdout).toBe("");
      // (The tools file of the working directory printed a line while loading.)
      expect(badKey.stderr.trim().split("\n").at(-1)).toMatch(
        /^AGENT_PLATFORM_API_KEY: no such API key in database .+$/,
      );

      const noWorkspace = await runWithInput(["--workspace", "nope"], [initialize(1)], {
        DATABASE_URL: server.databaseUrl,
      });
      expect(noWorkspace.code).toBe(1);
      expect(noWorkspace.stderr.trim().split("\n").at(-1)).toMatch(/^--workspace nope: no such workspace/);
    },
    SLOW,
  );
});

describe("the MCP Inspector CLI against agent-platform mcp", () => {
  const inspector = join(ROOT, "node_modules/@modelcontextprotocol/inspector-cli/build/cli.js");
  // Inspector CLI 1.0.3 finds its own package.json through a path it checks against the working directory, so it
  // runs from a folder whose parent holds a package.json: the repository's examples/ here.
  const run = (method: string[]) =>
    promisify(execFile)(
      process.execPath,
      [inspector, "--cli", process.execPath, BIN, "mcp", "--tools", toolsFile, "--method", ...method],
      { cwd: join(ROOT, "examples"), env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" } },
    );

  it(
    "--method tools/list lists the custom tools",
    async () => {
      const { stdout } = await run(["tools/list"]);
      expect(names(JSON.parse(stdout).tools)).toEqual(["shout"]);
    },
    SLOW,
  );

  it(
    "--method tools/call runs one",
    async () => {
      const { stdout } = await run(["tools/call", "--tool-name", "shout", "--tool-arg", "text=inspected"]);
      expect(JSON.parse(stdout).structuredContent).toEqual({ shouted: "INSPECTED" });
    },
    SLOW,
  );
});
