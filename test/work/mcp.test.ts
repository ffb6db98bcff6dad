// MCP servers as an agent's tools: Streamable HTTP, legacy SSE and stdio servers built with the official SDK give
// the run their tools as <server>__<tool>; a server that is down, or never answers, fails the run clearly.
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { toJson } from "../../src/db/values.ts";
import { testDialects } from "../helpers/databases.ts";
import {
  startLegacySseMcpServer,
  startSilentServer,
  startStreamableHttpMcpServer,
  type TestHttpMcpServer,
} from "./fixtures/mcp-servers.ts";
import { createAgent, createIssue, startWorkFixture, taskReaching, toolNamesOf, type WorkFixture } from "./helpers.ts";

const stdioServer = fileURLToPath(new URL("./fixtures/stdio-mcp-server.ts", import.meta.url));

describe.each(testDialects)("MCP servers as an agent's tools (%s)", (dialect) => {
  /** Connects patiently: a stdio server through tsx takes a while to start on a busy machine. */
  let f: WorkFixture;
  /** Gives up on a server, and on a tool call, after half a second. */
  let impatient: WorkFixture;
  /** A server as outside dev by default: no stdio MCP servers, and HTTP ones only on public https addresses. */
  let locked: WorkFixture;
  let http: TestHttpMcpServer;
  let sse: TestHttpMcpServer;
  let silent: TestHttpMcpServer;
  beforeAll(async () => {
    f = await startWorkFixture(dialect, { env: { MCP_CONNECT_TIMEOUT_MS: "15000" } });
    impatient = await startWorkFixture(dialect, {
      model: f.model,
      env: { MCP_CONNECT_TIMEOUT_MS: "500", TOOL_TIMEOUT_MS: "500" },
    });
    locked = await startWorkFixture(dialect, {
      model: f.model,
      env: { AGENT_MCP_STDIO: "false", AGENT_MCP_ALLOW_PRIVATE: "false" },
    });
    [http, sse, silent] = await Promise.all([
      startStreamableHttpMcpServer(),
      startLegacySseMcpServer(),
      startSilentServer(),
    ]);
  });
  afterAll(async () => {
    await impatient.close();
    await locked.close();
    await f.close();
    await Promise.all([http.close(), sse.close(), silent.close()]);
  });
  beforeEach(() => f.model.reset());

  const agentWithServers = (name: string, servers: unknown[], fixture = f) =>
    createAgent(fixture, { name, runtime_config: { mcp_servers: servers } }, fixture.admin.token);
  /** Stores an agent's MCP servers as they are, past the API's checks. */
  const storeServers = (fixture: WorkFixture, agentId: string, servers: unknown[]) =>
    fixture.t.db
      .updateTable("agents")
      .set({ runtime_config: toJson({ mcp_servers: servers }) })
      .where("id", "=", agentId)
      .execute();

  it("Streamable HTTP, legacy SSE and stdio servers each give the run their tools, which it calls", async () => {
    const agent = await agentWithServers("Toolsmith", [
      { name: "files", url: http.url, headers: { authorization: "Bearer mcp-secret" } },
      { name: "legacy", url: sse.url },
      { name: "local", command: process.execPath, args: ["--import", "tsx", stdioServer] },
    ]);
    // The headers are write-only: the agent is shown without them, and sending it back as shown keeps them.
    const shown = (await f.api.get(`workspaces/${f.ws}/agents/${agent.id}`, { token: f.member.token })).body;
    expect(shown.runtime_config.mcp_servers[0]).toEqual({
      name: "files",
      url: http.url,
      headers_set: ["authorization"],
    });
    const echoed = await f.api.patch(
      `workspaces/${f.ws}/agents/${agent.id}`,
      { runtime_config: shown.runtime_config },
      { token: f.admin.token },
    );
    expect(echoed.status).toBe(200);
    f.model.reply(
      {
        toolCalls: [
          { id: "c1", name: "files__read_file", arguments: { path: "notes.txt" } },
          { id: "c2", name: "legacy__add", arguments: { a: 2, b: 3 } },
          { id: "c3", name: "local__add", arguments: { a: 40, b: 2 } },
          { id: "c4", name: "files__read_file", arguments: { path: "missing.txt" } },
        ],
      },
      { text: "Friday; 5; 42." },
    );
    const draft = await createIssue(f, { assignee_type: "agent", assignee_id: agent.id });
    const task = await taskReaching(f, draft.id);
    expect(task).toMatchObject({ status: "succeeded", error: null });

    const offered = toolNamesOf(f.model.requests[0]?.body);
    expect(offered).toEqual(
      expect.arrayContaining(["files__read_file", "files__add", "legacy__read_file", "legacy__add", "local__add"]),
    );
    const results = Object.fromEntries(
      f.model.requests[1]?.body.messages
        .filter((message: { role: string }) => message.role === "tool")
        .map((message: { tool_call_id: string; content: string }) => [message.tool_call_id, message.content]),
    );
    expect(results).toEqual({ c1: "Ship on Friday.", c2: "5", c3: "42", c4: "Error: No such file: missing.txt" });
    expect(http.headers.some((headers) => headers.authorization === "Bearer mcp-secret")).toBe(true);
    // The legacy server was reached over SSE after it refused the Streamable HTTP request.
    expect(sse.headers.some((headers) => headers.accept?.includes("text/event-stream"))).toBe(true);
  });

  it("a server's tool that never answers fails after TOOL_TIMEOUT_MS; the model gets the error and the run finishes", async () => {
    const g = impatient;
    const agent = await agentWithServers("Waiter", [{ name: "files", url: http.url }], g);
    g.model.reply({ toolCalls: [{ id: "c1", name: "files__hang", arguments: {} }] }, { text: "It timed out." });
    const draft = await createIssue(g, { assignee_type: "agent", assignee_id: agent.id });
    const task = await taskReaching(g, draft.id);
    expect(task).toMatchObject({ status: "succeeded", attempt: 1 });
    const toolMessage = g.model.requests[1]?.body.messages.find((message: { role: string }) => message.role === "tool");
    expect(toolMessage).toEqual({
      role: "tool",
      content: "Error: files__hang timed out after 500 ms",
      tool_call_id: "c1",
    });
  });

  it("a server that is down, never answers, or cannot start fails the run with an error naming it", async () => {
    const closed = await startStreamableHttpMcpServer();
    await closed.close();
    const cases = [
      {
        server: { name: "down", url: closed.url },
        error: /^MCP server "down" \(http:\/\/127\.0\.0\.1:\d+\/mcp\) could not be reached: /,
      },
      {
        server: { name: "silent", url: silent.url },
        error: /^MCP server "silent" \(http:\/\/127\.0\.0\.1:\d+\/mcp\) could not be reached: no answer within 500 ms$/,
      },
      {
        server: { name: "missing", command: "/nonexistent/mcp-server" },
        error: /^MCP server "missing" \(command \/nonexistent\/mcp-server\) could not be reached: .*ENOENT/,
      },
    ];
    const g = impatient;
    for (const { server, error } of cases) {
      const agent = await agentWithServers(`Broken ${server.name}`, [{ name: "files", url: http.url }, server], g);
      const draft = await createIssue(g, { assignee_type: "agent", assignee_id: agent.id });
      // Retried like any failure outside the agent, each attempt bounded by the connect timeout (the silent
      // server's error says the timer fired); never hung, or the task would not have ended.
      const task = await taskReaching(g, draft.id);
      expect(task).toMatchObject({ status: "failed", attempt: 3, error: expect.stringMatching(error) });
      const runs = (await g.api.get(`workspaces/${g.ws}/tasks/${task.id}/runs`, { token: g.member.token })).body;
      expect(runs.map((run: { status: string }) => run.status)).toEqual(["failed", "failed", "failed"]);
    }
    expect(f.model.requests).toHaveLength(0);
  });

  it("with AGENT_MCP_STDIO off no one configures a stdio server (422 naming it), and an agent that has one fails", async () => {
    const g = locked;
    const agents = `workspaces/${g.ws}/agents/`;
    const local = { name: "local", command: process.execPath, args: ["--import", "tsx", stdioServer] };
    const created = await g.api.post(
      agents,
      { name: "Local", runtime_config: { mcp_servers: [{ name: "other", command: "true" }, local] } },
      { token: g.owner.token },
    );
    expect(created.status).toBe(422);
    expect(created.body.detail[0]).toMatchObject({
      loc: ["body", "runtime_config", "mcp_servers", "0", "command"],
      msg: expect.stringContaining("AGENT_MCP_STDIO is off"),
    });
    const plain = await createAgent(g, { name: "Plain" }, g.owner.token);
    const patched = await g.api.patch(
      `${agents}${plain.id}`,
      { runtime_config: { mcp_servers: [local] } },
      { token: g.owner.token },
    );
    expect(patched.status).toBe(422);
    const stored = (await g.api.get(`${agents}${plain.id}`, { token: g.member.token })).body;
    expect(stored.runtime_config).toEqual({});

    // One configured while stdio servers were allowed (written here as a database restored from such a server would
    // hold it): its run fails at once, naming the server and the setting; the command never runs, nothing retries.
    await storeServers(g, plain.id, [local]);
    const draft = await createIssue(g, { assignee_type: "agent", assignee_id: plain.id });
    const task = await taskReaching(g, draft.id);
    expect(task).toMatchObject({
      status: "failed",
      attempt: 1,
      error: expect.stringMatching(/^MCP server "local": .*AGENT_MCP_STDIO is off$/),
    });
    expect(g.model.requests).toHaveLength(0);
  });

  it("with AGENT_MCP_ALLOW_PRIVATE off an HTTP server must be https and public: refused on save and on every request", async () => {
    const g = locked;
    const agents = `workspaces/${g.ws}/agents/`;
    const port = new URL(http.url).port;
    const refused: [string, string][] = [
      [http.url, "MCP server URL must use https"],
      [
        `https://127.0.0.1:${port}/mcp`,
        "MCP server host 127.0.0.1 resolves to a private, loopback or link-local address",
      ],
      ["https://[::1]/mcp", "MCP server host ::1 resolves to a private, loopback or link-local address"],
      ["https://[::127.0.0.1]/mcp", "MCP server host ::7f00:1 resolves to a private, loopback or link-local address"],
      [
        "https://[::ffff:0:169.254.169.254]/mcp",
        "MCP server host ::ffff:0:a9fe:a9fe resolves to a private, loopback or link-local address",
      ],
      [
        "https://169.254.169.254/mcp",
        "MCP server host 169.254.169.254 resolves to a private, loopback or link-local address",
      ],
    ];
    for (const [url, problem] of refused) {
      const response = await g.api.post(
        agents,
        { name: "Reaching in", runtime_config: { mcp_servers: [{ name: "files", url }] } },
        { token: g.owner.token },
      );
      expect(response.status, url).toBe(422);
      expect(response.body.detail[0], url).toEqual(
        expect.objectContaining({ loc: ["body", "runtime_config", "mcp_servers", "0", "url"], msg: problem }),
      );
    }

    // A server stored before the rule (or a name that resolved elsewhere when saved): each request is checked again,
    // so the run's requests never reach the address, and the run fails naming why.
    const agent = await createAgent(g, { name: "Inside" }, g.owner.token);
    await storeServers(g, agent.id, [{ name: "files", url: http.url }]);
    const seenBefore = http.headers.length;
    const draft = await createIssue(g, { assignee_type: "agent", assignee_id: agent.id });
    const task = await taskReaching(g, draft.id);
    expect(task).toMatchObject({
      status: "failed",
      error: expect.stringMatching(
        /^MCP server "files" \(http:\/\/127\.0\.0\.1:\d+\/mcp\) could not be reached: .*MCP server URL must use https/,
      ),
    });
    expect(http.headers.length).toBe(seenBefore);
    expect(g.model.requests).toHaveLength(0);
  });
});
