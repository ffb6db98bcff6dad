// Three `agent-platform serve` processes on one PostgreSQL behind haproxy (deploy/haproxy.cfg, round robin, no
// stickiness): everything a user does through the proxy works as with one process, whichever process answers (login
// limits included), and a process killed under load leaves the others serving, its task retried and nothing
// acknowledged lost.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_LOGIN_RATE_LIMIT } from "../../src/auth/rate-limit.ts";
import { SseClient } from "../events/helpers.ts";
import { parseSse } from "../helpers/agui.ts";
import { registerUser } from "../helpers/app.ts";
import { type Cluster, startCluster } from "../helpers/cluster.ts";
import { createTestDatabase, type TestDatabase, testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { TestModelServer } from "../helpers/model-server.ts";
import { needs } from "../helpers/system-tools.ts";

const postgres = testDialects.filter((dialect) => dialect === "postgres");

describe.each(postgres)("three serve processes behind haproxy (%s)", needs("haproxy"), (dialect) => {
  let database: TestDatabase;
  let model: TestModelServer;
  let cluster: Cluster;
  let token: string;
  let ws: string;

  beforeAll(async () => {
    model = await TestModelServer.start();
    database = await createTestDatabase(dialect);
    cluster = await startCluster({
      databaseUrl: database.url,
      serveCount: 3,
      env: {
        OPENAI_BASE_URL: model.url,
        OPENAI_API_KEY: "test-key",
        AGENT_MODEL: "openai/test-model",
        TASK_LEASE_MS: "1500",
        TASK_RETRY_BASE_MS: "50",
      },
    });
    const owner = await registerUser(cluster.proxy.api, "owner");
    token = owner.token;
    ws = (await cluster.proxy.api.post("workspaces/", { name: "Cluster" }, { token })).body.id;
  }, 300_000);

  afterAll(async () => {
    await cluster?.close();
    await model?.close();
    await database?.drop();
  });

  it("the platform flows work through the proxy, with consecutive requests answered by different processes", async () => {
    const api = cluster.proxy.api;
    const auth = { token };
    const servedBy: string[] = [];
    const note = (response: { headers: Headers }) => servedBy.push(response.headers.get("x-served-by") ?? "");

    const second = await registerUser(api, "second");
    const login = await api.post("auth/login", { email: second.user.email, password: "correct horse battery" });
    expect(login.status).toBe(200);
    note(login);
    const me = await api.get("auth/me", { token: login.body.token });
    expect(me.body.email).toBe(second.user.email);
    note(me);
    const member = await api.post(`workspaces/${ws}/members`, { email: second.user.email, role: "member" }, auth);
    expect(member.status).toBe(201);
    note(member);
    const titles = ["One", "Two", "Three", "Four", "Five", "Six"];
    for (const title of titles) {
      const created = await api.post(`workspaces/${ws}/issues/`, { title }, { token: login.body.token });
      expect(created.status).toBe(201);
      note(created);
    }
    for (let read = 0; read < 3; read++) {
      const list = await api.get(`workspaces/${ws}/issues/?limit=200`, auth);
      expect(list.status).toBe(200);
      expect(list.body.map((issue: { title: string }) => issue.title)).toEqual(expect.arrayContaining(titles));
      note(list);
    }
    expect(new Set(servedBy)).toEqual(new Set(["serve1", "serve2", "serve3"]));
    for (let index = 1; index < servedBy.length; index++) expect(servedBy[index]).not.toBe(servedBy[index - 1]);
    const counts = await cluster.proxy.servedBy();
    expect(Object.keys(counts).sort()).toEqual(["serve1", "serve2", "serve3"]);
    for (const count of Object.values(counts)) expect(count).toBeGreaterThan(3);
  });

  it("/metrics is not served through the proxy, only by each process to a local scraper", async () => {
    expect((await fetch(`${cluster.proxy.url}/metrics`)).status).toBe(404);
    for (const process of cluster.serve) expect((await fetch(`${process.url}/metrics`)).status).toBe(200);
  });

  it("failed logins for one email, spread over the processes, lock it after the configured number in total", async () => {
    const api = cluster.proxy.api;
    const { failuresPerEmail, windowMs } = DEFAULT_LOGIN_RATE_LIMIT;
    const target = await registerUser(api, "lockout");
    // The limit counts in fixed windows: start well inside one, so every attempt below falls in the same.
    const leftInWindow = windowMs - (Date.now() % windowMs);
    if (leftInWindow < 20_000) await new Promise((resolve) => setTimeout(resolve, leftInWindow + 100));

    const failedOn: string[] = [];
    for (let attempt = 0; attempt < failuresPerEmail; attempt++) {
      const failed = await api.post("auth/login", { email: target.user.email, password: `wrong guess ${attempt}` });
      expect(failed.status).toBe(401);
      failedOn.push(failed.headers.get("x-served-by") ?? "");
    }
    // Each process saw only a third of them, yet the next attempt is refused, the right password included.
    expect(new Set(failedOn)).toEqual(new Set(["serve1", "serve2", "serve3"]));
    const lockedOn: string[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const locked = await api.post("auth/login", { email: target.user.email, password: "correct horse battery" });
      expect(locked.status).toBe(429);
      expect(locked.body.detail).toMatch(/too many login attempts/i);
      const retryAfter = Number(locked.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(windowMs / 1000);
      expect(locked.body.token).toBeUndefined();
      lockedOn.push(locked.headers.get("x-served-by") ?? "");
    }
    expect(new Set(lockedOn)).toEqual(new Set(["serve1", "serve2", "serve3"]));
  }, 60_000);

  it("an /agui run through the proxy, and its thread continued by another process", async () => {
    const run = (messages: { id: string; role: string; content: string }[]) =>
      fetch(`${cluster.proxy.url}/agui`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify({ threadId: "cluster-thread", runId: `run-${messages.length}`, messages, state: {} }),
      }).then(async (response) => ({
        servedBy: response.headers.get("x-served-by"),
        types: parseSse(await response.text()).map((frame) => frame.data?.type),
      }));
    model.reset();
    model.reply({ text: "First answer" }, { text: "Second answer" });
    const first = await run([{ id: "u1", role: "user", content: "Hello" }]);
    expect(first.types.at(0)).toBe("RUN_STARTED");
    expect(first.types.at(-1)).toBe("RUN_FINISHED");
    const second = await run([{ id: "u2", role: "user", content: "And again" }]);
    expect(second.types.at(-1)).toBe("RUN_FINISHED");
    expect(second.servedBy).not.toBe(first.servedBy);
    // The second process read the thread the first one stored.
    const contents = model.requests[1]?.body.messages.map((message: { content: string }) => message.content);
    expect(contents).toEqual(expect.arrayContaining(["Hello", "First answer", "And again"]));
  });

  it("the tool protocol's Streamable HTTP /mcp through the proxy: an SDK client lists and calls tools", async () => {
    const key = await cluster.proxy.api.post(`workspaces/${ws}/api-keys`, { name: "mcp" }, { token });
    expect(key.status).toBe(201);
    const client = new Client({ name: "cluster-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL("/mcp", cluster.proxy.url), {
        requestInit: { headers: { "x-api-key": key.body.key } },
      }),
    );
    try {
      for (let round = 0; round < 3; round++) {
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name)).toContain("list_issues");
      }
      const result = await client.callTool({ name: "list_issues", arguments: {} });
      expect(result.isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });

  it("the tool protocol's legacy SSE through the proxy: the stream held by one process, posts answered by the others", async () => {
    const key = await cluster.proxy.api.post(`workspaces/${ws}/api-keys`, { name: "mcp-sse" }, { token });
    expect(key.status).toBe(201);
    // Which process answered each request, as the proxy tells it.
    const servedBy: { method: string; server: string | null; status: number }[] = [];
    const observed: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      servedBy.push({
        method: init?.method ?? "GET",
        server: response.headers.get("x-served-by"),
        status: response.status,
      });
      return response;
    };
    const client = new Client({ name: "cluster-sse-test", version: "1.0.0" });
    await client.connect(
      new SSEClientTransport(new URL("/sse", cluster.proxy.url), {
        requestInit: { headers: { "x-api-key": key.body.key } },
        fetch: observed,
      }),
    );
    try {
      for (let round = 0; round < 3; round++) {
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name)).toContain("create_issue");
      }
      const created = await client.callTool({ name: "create_issue", arguments: { title: "Filed over legacy SSE" } });
      expect(created.isError).toBeFalsy();
      const listed = await client.callTool({ name: "list_issues", arguments: {} });
      expect(JSON.stringify(listed.structuredContent ?? listed.content)).toContain("Filed over legacy SSE");
    } finally {
      await client.close();
    }
    const stream = servedBy.find((request) => request.method === "GET");
    const posts = servedBy.filter((request) => request.method === "POST");
    expect(stream?.status).toBe(200);
    expect(posts.length).toBeGreaterThanOrEqual(6);
    expect(new Set(posts.map((post) => post.status))).toEqual(new Set([202]));
    // Round robin: posts went to processes other than the stream's, so they were forwarded to it.
    expect(posts.filter((post) => post.server !== stream?.server).length).toBeGreaterThan(0);
    const issues = await cluster.proxy.api.get(`workspaces/${ws}/issues/?q=legacy%20SSE`, { token });
    expect(issues.body.map((issue: { title: string }) => issue.title)).toContain("Filed over legacy SSE");
  });

  it("a task and its events: assigned through one process, run by any, seen on a stream held by another", async () => {
    model.reset();
    model.setDefault({ text: "Done." });
    const agent = await cluster.proxy.api.post(`workspaces/${ws}/agents/`, { name: "Helper" }, { token });
    const stream = await SseClient.open(`${cluster.proxy.url}/api/v1/workspaces/${ws}/events/stream`, {
      authorization: `Bearer ${token}`,
    });
    try {
      expect(stream.status).toBe(200);
      const issue = await cluster.proxy.api.post(
        `workspaces/${ws}/issues/`,
        { title: "Work for the agent", assignee_type: "agent", assignee_id: agent.body.id },
        { token },
      );
      expect(issue.status).toBe(201);
      expect(issue.headers.get("x-served-by")).not.toBe(stream.headers["x-served-by"]);
      const types = await eventually(
        () => {
          const seen = stream.data.filter((event) => event.issue_id === issue.body.id).map((event) => event.type);
          return seen.includes("task.succeeded") && seen;
        },
        "the task's events on the stream",
        30_000,
      );
      expect(types).toEqual(expect.arrayContaining(["issue.created", "task.queued", "task.started", "task.succeeded"]));
      const seqs = stream.seqs;
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(new Set(seqs).size).toBe(seqs.length);
    } finally {
      stream.close();
    }
  }, 60_000);

  it("kill -9 of one process under load: the others serve, its task is retried, its stream resumes, nothing acknowledged is lost", async () => {
    const api = cluster.proxy.api;
    model.reset();
    model.setDefault({ text: "Finished after all." });
    model.reply({ stall: true, text: "Half" });
    const agent = await api.post(`workspaces/${ws}/agents/`, { name: "Survivor" }, { token });
    const task = await api.post(
      `workspaces/${ws}/issues/`,
      { title: "Outlive a crash", assignee_type: "agent", assignee_id: agent.body.id },
      { token },
    );
    const running = await eventually(
      async () => {
        const [row] = (await api.get(`workspaces/${ws}/issues/${task.body.id}/tasks`, { token })).body;
        return row?.status === "running" && model.requests.length === 1 && row;
      },
      "the task to run",
      30_000,
    );
    // The run's own process is the victim: the lease names its pid.
    const { Client: PgClient } = (await import("pg")).default;
    const pg = new PgClient({ connectionString: database.url });
    await pg.connect();
    const owner = (await pg.query("select lease_owner from tasks where id = $1", [running.id])).rows[0].lease_owner;
    const victimIndex = cluster.serve.findIndex((process) => process.child.pid === Number(owner.split(":")[1]));
    expect(victimIndex).toBeGreaterThanOrEqual(0);
    const victim = cluster.serve[victimIndex]!;
    const victimName = `serve${victimIndex + 1}`;

    // A stream held by the victim (round robin: one of three consecutive opens lands on it).
    const streams: SseClient[] = [];
    for (let open = 0; open < 3; open++) {
      streams.push(
        await SseClient.open(`${cluster.proxy.url}/api/v1/workspaces/${ws}/events/stream?after_seq=0`, {
          authorization: `Bearer ${token}`,
        }),
      );
    }
    const onVictim = streams.find((stream) => stream.headers["x-served-by"] === victimName)!;
    expect(onVictim).toBeDefined();

    const acknowledged: string[] = [];
    let failures = 0;
    let writing = true;
    const writers = Array.from({ length: 4 }, async (_, writer) => {
      for (let n = 0; writing; n++) {
        const response = await api
          .post(`workspaces/${ws}/issues/`, { title: `Load ${writer}-${n}` }, { token })
          .catch(() => ({ status: 0, body: undefined }));
        if (response.status === 201) acknowledged.push(response.body.id);
        else failures++;
      }
    });
    await eventually(() => acknowledged.length >= 20, "load to get going", 30_000);
    victim.child.kill("SIGKILL");
    await victim.exited;
    const atKill = acknowledged.length;
    await eventually(() => acknowledged.length >= atKill + 40, "the others to keep serving", 30_000);
    const failuresAfterSettling = failures;
    await eventually(() => acknowledged.length >= atKill + 60, "more load after the kill", 30_000);
    writing = false;
    await Promise.all(writers);
    // Past the moment of the kill, nothing fails.
    expect(failures).toBe(failuresAfterSettling);

    // Every acknowledged write is there, read through the proxy.
    const stored = new Set<string>();
    for (let offset = 0; ; offset += 200) {
      const page = (await api.get(`workspaces/${ws}/issues/?limit=200&offset=${offset}`, { token })).body;
      for (const issue of page) stored.add(issue.id);
      if (page.length < 200) break;
    }
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);

    // The killed process's task is taken up by another once its lease expires, and succeeds.
    const retried = await eventually(
      async () => {
        const [row] = (await api.get(`workspaces/${ws}/issues/${task.body.id}/tasks`, { token })).body;
        return row?.status === "succeeded" && row;
      },
      "the task to be retried elsewhere",
      30_000,
    );
    expect(retried.attempt).toBe(2);

    // The victim's stream ended; its client resumes through the proxy from its last id, with no gap or repeat.
    await onVictim.waitForEnd(10_000);
    const head = Number(
      (await pg.query("select max(seq) as head from events where workspace_id = $1", [ws])).rows[0].head,
    );
    await pg.end();
    const resumed = await SseClient.open(`${cluster.proxy.url}/api/v1/workspaces/${ws}/events/stream`, {
      authorization: `Bearer ${token}`,
      "last-event-id": String(onVictim.seqs.at(-1) ?? 0),
    });
    try {
      expect(resumed.headers["x-served-by"]).not.toBe(victimName);
      await eventually(() => resumed.seqs.includes(head), "the resumed stream to catch up", 15_000);
      const seen = [...onVictim.seqs, ...resumed.seqs].filter((seq) => seq <= head);
      expect(seen).toEqual(Array.from({ length: head }, (_, index) => index + 1));
    } finally {
      resumed.close();
      for (const stream of streams) stream.close();
    }
  }, 180_000);
});
