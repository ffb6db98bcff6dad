// Legacy SSE behind a round-robin load balancer: the stream is held by one process, its POSTs reach another. The
// message still reaches the stream (forwarded through PostgreSQL), the posting process checks the post's own
// credential, and a session that no process holds is 404 everywhere. (SQLite serves one process only.)
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/index.ts";
import { migrateToLatest } from "../../src/db/migrate.ts";
import { createWorkspaceWithRoles, startAppOn, type TestApp, type WorkspaceWithRoles } from "../helpers/app.ts";
import { type PlatformProcess, startProcess, stopProcess } from "../helpers/cluster.ts";
import { createTestDatabase, type TestDatabase, testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { registryWith } from "../helpers/registry.ts";
import { call, echoTool, postJson, RawSseStream, startMcpApp, throwingTool, whoAmITool } from "./helpers.ts";

const postgresOnly = testDialects.filter((dialect) => dialect === "postgres");

describe.each(postgresOnly)("legacy SSE sessions across two processes (%s)", (dialect) => {
  let a: TestApp;
  let b: TestApp;
  let team: WorkspaceWithRoles;

  beforeAll(async () => {
    a = await startMcpApp(dialect);
    b = await startAppOn(a.databaseUrl, dialect, { registry: registryWith(echoTool, throwingTool, whoAmITool) });
    team = await createWorkspaceWithRoles(a.api);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  async function createKey(token: string, workspaceId = team.workspaceId): Promise<{ id: string; key: string }> {
    const response = await a.api.post(`workspaces/${workspaceId}/api-keys`, { name: "mcp" }, { token });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body;
  }

  it("the SDK client's stream on A, its posts on B: initialize, tools/list and tools/call work", async () => {
    const { key } = await createKey(team.owner.token);
    const postsToB: number[] = [];
    // The load balancer: the stream goes to A, every POST to B.
    const roundRobin: typeof fetch = async (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      if ((init?.method ?? "GET") !== "POST") return fetch(input, init);
      const response = await fetch(new URL(url.pathname + url.search, b.url), init);
      postsToB.push(response.status);
      return response;
    };
    const transport = new SSEClientTransport(new URL("/sse", a.url), {
      requestInit: { headers: { "x-api-key": key } },
      fetch: roundRobin,
    });
    const client = new Client({ name: "behind-a-balancer", version: "1.0.0" });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["echo", "whoami", "create_issue"]));
      const echoed = await client.callTool({ name: "echo", arguments: { text: "across processes" } });
      expect(echoed.structuredContent).toEqual({ echoed: "across processes" });
      // The tool ran as the session's opener: the key's workspace.
      const who = await client.callTool({ name: "whoami", arguments: {} });
      expect(who.structuredContent).toEqual({ workspaceId: team.workspaceId, userId: team.owner.user.id });
      // A message larger than a NOTIFY payload travels too.
      const long = "x".repeat(20_000);
      const big = await client.callTool({ name: "echo", arguments: { text: long } });
      expect(big.structuredContent).toEqual({ echoed: long });
      const created = await client.callTool({ name: "create_issue", arguments: { title: "made through B" } });
      expect(created.isError).toBeUndefined();
      expect(postsToB.length).toBeGreaterThanOrEqual(6);
      expect(new Set(postsToB)).toEqual(new Set([202]));
    } finally {
      await client.close();
    }
  });

  it("a post on B with a bad or missing credential is 401 from B, another principal's is 403, and nothing runs", async () => {
    const { key } = await createKey(team.owner.token);
    const stream = await RawSseStream.open(a.url, { "x-api-key": key });
    try {
      const endpoint = await stream.endpoint();
      const attempts: [Record<string, string>, number][] = [
        [{}, 401],
        [{ "x-api-key": "ap_garbage" }, 401],
        [{ authorization: "Bearer not-a-token" }, 401],
        [{ authorization: `Bearer ${team.member.token}`, "x-workspace-id": team.workspaceId }, 403],
      ];
      for (const [index, [headers, status]] of attempts.entries()) {
        const response = await postJson(b.url, endpoint, call(index, "echo", { text: "attack" }), headers);
        expect(response.status, JSON.stringify(headers)).toBe(status);
        expect(response.json().detail).toEqual(expect.any(String));
      }
      const own = await postJson(b.url, endpoint, call(9, "echo", { text: "mine" }), { "x-api-key": key });
      expect(own.status).toBe(202);
      expect(await stream.reply(9)).toMatchObject({ id: 9, result: { structuredContent: { echoed: "mine" } } });
      // Only the owner's message was answered.
      expect(stream.messages().map((message) => message.id)).toEqual([9]);
      // A body PostgreSQL cannot carry (a raw NUL) is still a parse error on the stream, not a failed post.
      const nul = await postJson(b.url, endpoint, '{"jsonrpc":"2.0","id":10,"method":"ping"}\u0000', {
        "x-api-key": key,
      });
      expect(nul.status).toBe(202);
      await eventually(() => stream.messages().find((message) => message.error?.code === -32700), "the parse error");
    } finally {
      stream.close();
    }
  });

  it("a key revoked after the session opened: the post on B is 401 and the stream on A ends", async () => {
    const { id, key } = await createKey(team.owner.token);
    const stream = await RawSseStream.open(a.url, { "x-api-key": key });
    try {
      const endpoint = await stream.endpoint();
      const revoked = await b.api.delete(`workspaces/${team.workspaceId}/api-keys/${id}`, { token: team.owner.token });
      expect(revoked.status).toBe(204);
      const after = await postJson(b.url, endpoint, call(1, "echo", { text: "late" }), { "x-api-key": key });
      expect(after.status).toBe(401);
      await eventually(() => stream.ended || undefined, "the stream on A to end");
      expect(stream.messages()).toEqual([]);
      expect((await postJson(b.url, endpoint, call(2, "echo", { text: "x" }))).status).toBe(404);
      expect((await postJson(a.url, endpoint, call(2, "echo", { text: "x" }))).status).toBe(404);
    } finally {
      stream.close();
    }
  });

  it("an unknown session, and one whose stream closed, is 404 from every process", async () => {
    const unknown = `/messages/?session_id=${"0".repeat(32)}`;
    for (const app of [a, b])
      expect((await postJson(app.url, unknown, call(1, "echo", { text: "?" }))).status).toBe(404);

    const stream = await RawSseStream.open(a.url);
    const endpoint = await stream.endpoint();
    expect((await postJson(b.url, endpoint, call(1, "echo", { text: "open" }))).status).toBe(202);
    await stream.reply(1);
    stream.close();
    await eventually(
      async () =>
        (await postJson(b.url, endpoint, call(2, "echo", { text: "closed" }))).status === 404 ? true : undefined,
      "the closed session to be gone on B",
    );
    expect((await postJson(a.url, endpoint, call(3, "echo", { text: "closed" }))).status).toBe(404);
  });
});

describe.each(postgresOnly)("legacy SSE across two real serve processes (%s)", (dialect) => {
  const processes: PlatformProcess[] = [];
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    const handle = openDatabase(database.url);
    await migrateToLatest(handle.db);
    await handle.close();
    processes.push(
      ...(await Promise.all([
        startProcess("serve", { DATABASE_URL: database.url }),
        startProcess("serve", { DATABASE_URL: database.url }),
      ])),
    );
  }, 90_000);
  afterAll(async () => {
    await Promise.all(processes.map(stopProcess));
    await database?.drop();
  });

  it("the stream on one process, every post on the other: platform tools list and run; a bad key is 401", async () => {
    const [first, second] = processes as [PlatformProcess, PlatformProcess];
    const team = await createWorkspaceWithRoles(first.api);
    const created = await first.api.post(
      `workspaces/${team.workspaceId}/api-keys`,
      { name: "mcp" },
      { token: team.owner.token },
    );
    const key: string = created.body.key;
    const toSecond: typeof fetch = async (input, init) => {
      if ((init?.method ?? "GET") !== "POST") return fetch(input, init);
      const url = new URL(input instanceof Request ? input.url : String(input));
      return fetch(new URL(url.pathname + url.search, second.url), init);
    };
    const client = new Client({ name: "two-processes", version: "1.0.0" });
    await client.connect(
      new SSEClientTransport(new URL("/sse", first.url), {
        requestInit: { headers: { "x-api-key": key } },
        fetch: toSecond,
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["create_issue", "list_issues"]));
      const made = await client.callTool({ name: "create_issue", arguments: { title: "Through the other process" } });
      expect(made.isError).toBeUndefined();
      const listed = await first.api.get(`workspaces/${team.workspaceId}/issues/`, { token: team.owner.token });
      expect(listed.body.map((issue: { title: string }) => issue.title)).toEqual(["Through the other process"]);

      const stream = await RawSseStream.open(first.url, { "x-api-key": key });
      try {
        const endpoint = await stream.endpoint();
        const bad = await postJson(second.url, endpoint, call(1, "list_issues", {}), { "x-api-key": "ap_garbage" });
        expect(bad.status).toBe(401);
        const good = await postJson(second.url, endpoint, call(2, "list_issues", {}), { "x-api-key": key });
        expect(good.status).toBe(202);
        expect((await stream.reply(2)).result.isError).toBeUndefined();
        expect(stream.messages().map((message) => message.id)).toEqual([2]);
      } finally {
        stream.close();
      }
    } finally {
      await client.close();
    }
  }, 60_000);
});
