// MCP servers as an agent's tools: Streamable HTTP, legacy SSE and stdio servers built with the official SDK give
// the run their tools as <server>__<tool>; a server that is down, or never answers, fails the run clearly.
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
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
  /** A server that runs no stdio MCP servers (AGENT_MCP_STDIO=false, as outside dev by default). */
  let noStdio: WorkFixture;
  let http: TestHttpMcpServer;
  let sse: TestHttpMcpServer;
  let silent: TestHttpMcpServer;
  beforeAll(async () => {
    f = await startWorkFixture(dialect, { env: { MCP_CONNECT_TIMEOUT_MS: "15000" } });
    impatient = await startWorkFixture(dialect, {
      model: f.model,
      env: { MCP_CONNECT_TIMEOUT_MS: "500", TOOL_TIMEOUT_MS: "500" },
    });
    noStdio = await startWorkFixture(dialect, { model: f.model, env: { AGENT_MCP_STDIO: "false" } });
    [http, sse, silent] = await Promise.all([
      startStreamableHttpMcpServer(),
      startLegacySseMcpServer(),
      startSilentServer(),
    ]);
  });
  afterAll(async () => {
    await impatient.close();
    await noStdio.close();
    await f.close();
    await Promise.all([http.close(), sse.close(), silent.close()]);
  });
  beforeEach(() => f.model.reset());

  const agentWithServers = (name: string, servers: unknown[], fixture = f) =>
    createAgent(fixture, { name, runtime_config: { mcp_servers: servers } }, fixture.admin.token);

  it("Streamable HTTP, legacy SSE and stdio servers each give the run their tools, which it calls", async () => {
    const agent = await agentWithServers("Toolsmith", [
      { name: "files", url: http.url, headers: { authorization: "Bearer mcp-secret" } },
      { name: "legacy", url: sse.url },
      { name: "local", command: process.execPath, args: ["--import", "tsx", stdioServer] },
    ]);
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
      const startedAt = Date.now();
      const task = await taskReaching(g, draft.id);
      // Retried like any failure outside the agent, each attempt bounded by the connect timeout; never hung.
      expect(task).toMatchObject({ status: "failed", attempt: 3, error: expect.stringMatching(error) });
      expect(Date.now() - startedAt).toBeLessThan(3 * 500 + 3_000);
      const runs = (await g.api.get(`workspaces/${g.ws}/tasks/${task.id}/runs`, { token: g.member.token })).body;
      expect(runs.map((run: { status: string }) => run.status)).toEqual(["failed", "failed", "failed"]);
    }
    expect(f.model.requests).toHaveLength(0);
  });

  it("with AGENT_MCP_STDIO off no one configures a stdio server (422 naming it), and an agent that has one fails", async () => {
    const g = noStdio;
    const agents = `workspaces/${g.ws}/agents/`;
    const local = { name: "local", command: process.execPath, args: ["--import", "tsx", stdioServer] };
    const servers = [{ name: "files", url: http.url }, local];
    const created = await g.api.post(
      agents,
      { name: "Local", runtime_config: { mcp_servers: servers } },
      { token: g.owner.token },
    );
    expect(created.status).toBe(422);
    expect(created.body.detail[0]).toMatchObject({
      loc: ["body", "runtime_config", "mcp_servers", "1", "command"],
      msg: expect.stringContaining("AGENT_MCP_STDIO is off"),
    });
    const remote = await agentWithServers("Remote only", [{ name: "files", url: http.url }], g);
    const patched = await g.api.patch(
      `${agents}${remote.id}`,
      { runtime_config: { mcp_servers: servers } },
      { token: g.owner.token },
    );
    expect(patched.status).toBe(422);
    const stored = (await g.api.get(`${agents}${remote.id}`, { token: g.member.token })).body;
    expect(stored.runtime_config).toEqual({ mcp_servers: [{ name: "files", url: http.url }] });

    // One configured while stdio servers were allowed (written here as a database restored from such a server would
    // hold it): its run fails at once, naming the server and the setting; the command never runs, nothing retries.
    const [kept] = await g.t.db
      .updateTable("agents")
      .set({ runtime_config: JSON.stringify({ mcp_servers: servers }) })
      .where("id", "=", remote.id)
      .returning("id")
      .execute();
    expect(kept).toBeDefined();
    const draft = await createIssue(g, { assignee_type: "agent", assignee_id: remote.id });
    const task = await taskReaching(g, draft.id);
    expect(task).toMatchObject({
      status: "failed",
      attempt: 1,
      error: expect.stringMatching(/^MCP server "local": .*AGENT_MCP_STDIO is off$/),
    });
    expect(g.model.requests).toHaveLength(0);
  });
});
