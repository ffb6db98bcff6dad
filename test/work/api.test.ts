// The tasks, runs and approvals API: lists and filters, the check order, the IDOR rule, and bad input changing
// nothing; agents' runtime_config and tool names checked on create and update.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { registryWith } from "../helpers/registry.ts";
import { createAgent, createIssue, startWorkFixture, taskReaching, type WorkFixture } from "./helpers.ts";

const echo = {
  name: "echo",
  description: "Says it back",
  inputSchema: { type: "object" as const, properties: {} },
  run: async () => "echo",
};

describe.each(testDialects)("tasks, runs and approvals API (%s)", (dialect) => {
  let f: WorkFixture;
  let agent: any;
  let task: any;
  let foreignTask: any;
  beforeAll(async () => {
    f = await startWorkFixture(dialect, { registry: registryWith(echo) });
    agent = await createAgent(f, { name: "Lister" });
    const draft = await createIssue(f, { assignee_type: "agent", assignee_id: agent.id });
    task = await taskReaching(f, draft.id);
    // A task of another workspace, with its run.
    const theirAgent = await f.api.post(
      `workspaces/${f.otherWs}/agents/`,
      { name: "Theirs" },
      { token: f.outsider.token },
    );
    const theirIssue = await f.api.post(
      `workspaces/${f.otherWs}/issues/`,
      { title: "Theirs", assignee_type: "agent", assignee_id: theirAgent.body.id },
      { token: f.outsider.token },
    );
    foreignTask = await eventually(async () => {
      const [row] = (
        await f.api.get(`workspaces/${f.otherWs}/tasks?issue_id=${theirIssue.body.id}`, { token: f.outsider.token })
      ).body;
      return row?.status === "succeeded" && row;
    }, "the other workspace's task to succeed");
  });
  afterAll(() => f.close());
  beforeEach(() => f.model.reset());

  const counts = async () => ({
    tasks: (await f.t.db.selectFrom("tasks").select("id").execute()).length,
    approvals: (await f.t.db.selectFrom("approvals").select("id").execute()).length,
    agents: (await f.t.db.selectFrom("agents").select("id").execute()).length,
  });

  it("lists tasks newest first with status, agent and issue filters, and pages them", async () => {
    const second = await createIssue(f, { assignee_type: "agent", assignee_id: agent.id });
    const newer = await taskReaching(f, second.id);
    const path = `workspaces/${f.ws}/tasks`;
    const all = (await f.api.get(path, { token: f.member.token })).body;
    expect(all.map((each: { id: string }) => each.id)).toEqual([newer.id, task.id]);
    expect((await f.api.get(`${path}?issue_id=${second.id}`, { token: f.member.token })).body).toEqual([newer]);
    expect((await f.api.get(`${path}?status=failed,cancelled`, { token: f.member.token })).body).toEqual([]);
    expect((await f.api.get(`${path}?agent_id=${agent.id}&limit=1&offset=1`, { token: f.member.token })).body).toEqual([
      task,
    ]);
    expect((await f.api.get(`${path}/`, { token: f.member.token })).status).toBe(200);
    const bad = await f.api.get(`${path}?status=sleeping`, { token: f.member.token });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(["query", "status", "0"]);
  });

  it("the endpoints are in the OpenAPI document", async () => {
    const document = await f.api.get("/openapi.json");
    expect(document.status).toBe(200);
    const ws = "/api/v1/workspaces/{ws_id}";
    const expected: Record<string, string[]> = {
      [`${ws}/tasks`]: ["get"],
      [`${ws}/tasks/{task_id}`]: ["get"],
      [`${ws}/tasks/{task_id}/cancel`]: ["post"],
      [`${ws}/tasks/{task_id}/runs`]: ["get"],
      [`${ws}/issues/{issue_id}/tasks`]: ["get", "post"],
      [`${ws}/runs/{run_id}`]: ["get"],
      [`${ws}/runs/{run_id}/events`]: ["get"],
      [`${ws}/approvals`]: ["get"],
      [`${ws}/approvals/{approval_id}`]: ["get", "post"],
      [`${ws}/questions`]: ["get"],
      [`${ws}/questions/{question_id}`]: ["get"],
      [`${ws}/questions/{question_id}/answer`]: ["post"],
    };
    for (const [path, methods] of Object.entries(expected)) {
      expect(Object.keys(document.body.paths[path] ?? {}).sort(), path).toEqual(methods);
    }
    expect(Object.keys(document.body.components.schemas)).toEqual(
      expect.arrayContaining(["Task", "Run", "Approval", "Question"]),
    );
  });

  it("401 without credentials, 403 for non-members, before anything else", async () => {
    const paths = [
      ["GET", "tasks"],
      ["GET", `tasks/${task.id}`],
      ["POST", `tasks/${task.id}/cancel`],
      ["GET", `tasks/${task.id}/runs`],
      ["GET", `runs/${task.run_id}`],
      ["GET", `runs/${task.run_id}/events`],
      ["GET", "approvals"],
      ["POST", `approvals/${randomUUID()}`],
      ["POST", `issues/${task.issue_id}/tasks`],
      ["GET", `issues/${task.issue_id}/tasks`],
    ];
    for (const [method, path] of paths) {
      const url = `workspaces/${f.ws}/${path}`;
      const body = method === "POST" ? { bad: "body" } : undefined;
      expect((await f.api.request(method!, url, body)).status, `${method} ${path}`).toBe(401);
      expect((await f.api.request(method!, url, body, { token: f.outsider.token })).status).toBe(403);
    }
  });

  it("another workspace's task, run or agent is 404 through this one (IDOR), and nothing changes", async () => {
    const before = await counts();
    const token = { token: f.member.token };
    const ws = `workspaces/${f.ws}`;
    for (const path of [`tasks/${foreignTask.id}`, `tasks/${foreignTask.id}/runs`, `runs/${foreignTask.run_id}`]) {
      expect(await f.api.get(`${ws}/${path}`, token)).toMatchObject({ status: 404 });
    }
    const events = await f.api.get(`${ws}/runs/${foreignTask.run_id}/events`, token);
    expect(events).toMatchObject({ status: 404, body: { detail: "Run not found" } });
    expect(await f.api.post(`${ws}/tasks/${foreignTask.id}/cancel`, undefined, token)).toMatchObject({
      status: 404,
      body: { detail: "Task not found" },
    });
    const theirAgent = foreignTask.agent_id;
    for (const agentId of [theirAgent, randomUUID(), "not-an-id"]) {
      const response = await f.api.post(`${ws}/issues/${task.issue_id}/tasks`, { agent_id: agentId }, token);
      expect(response).toMatchObject({ status: 404, body: { detail: "Agent not found" } });
    }
    const unknownIssue = await f.api.post(`${ws}/issues/${foreignTask.issue_id}/tasks`, { agent_id: agent.id }, token);
    expect(unknownIssue).toMatchObject({ status: 404, body: { detail: "Issue not found" } });
    const missing = await f.api.post(`${ws}/issues/${task.issue_id}/tasks`, {}, token);
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0].loc).toEqual(["body", "agent_id"]);
    expect(await f.api.post(`${ws}/approvals/${randomUUID()}`, { decision: "approve" }, token)).toMatchObject({
      status: 404,
      body: { detail: "Approval not found" },
    });
    const badDecision = await f.api.post(`${ws}/approvals/${randomUUID()}`, { decision: "maybe" }, token);
    expect(badDecision.status).toBe(422);
    expect(badDecision.body.detail[0].loc).toEqual(["body", "decision"]);
    expect(await counts()).toEqual(before);
  });

  it("agent create and update check runtime_config (422 naming the field) and tool names; nothing is stored", async () => {
    const before = await counts();
    const agents = `workspaces/${f.ws}/agents/`;
    const bad: [Record<string, unknown>, string[]][] = [
      [{ runtime_config: { mcp_servers: "files" } }, ["body", "runtime_config", "mcp_servers"]],
      [{ runtime_config: { mcp_servers: [{ name: "files" }] } }, ["body", "runtime_config", "mcp_servers", "0", "url"]],
      [
        { runtime_config: { mcp_servers: [{ name: "files", url: "ftp://files.example" }] } },
        ["body", "runtime_config", "mcp_servers", "0", "url"],
      ],
      [
        { runtime_config: { mcp_servers: [{ name: "has space", url: "http://127.0.0.1:1/mcp" }] } },
        ["body", "runtime_config", "mcp_servers", "0", "name"],
      ],
      [
        { runtime_config: { mcp_servers: [{ name: "x", url: "http://127.0.0.1:1/mcp", command: "node" }] } },
        ["body", "runtime_config", "mcp_servers", "0", "url"],
      ],
      [
        { runtime_config: { mcp_servers: [{ name: "x", command: "node", args: "server.js" }] } },
        ["body", "runtime_config", "mcp_servers", "0", "args"],
      ],
      [
        {
          runtime_config: {
            mcp_servers: [
              { name: "x", url: "http://127.0.0.1:1/mcp" },
              { name: "x", url: "http://127.0.0.1:2/mcp" },
            ],
          },
        },
        ["body", "runtime_config", "mcp_servers"],
      ],
      [{ runtime_config: { approval_required: "create_issue" } }, ["body", "runtime_config", "approval_required"]],
      [{ runtime_config: { approval_required: [""] } }, ["body", "runtime_config", "approval_required", "0"]],
      [{ tools: ["echo", "no_such_tool"] }, ["body", "tools", "1"]],
    ];
    for (const [fields, loc] of bad) {
      const response = await f.api.post(agents, { name: "Bad", ...fields }, { token: f.admin.token });
      expect(response.status, JSON.stringify(fields)).toBe(422);
      expect(response.body.detail[0].loc, JSON.stringify(fields)).toEqual(loc);
    }
    const unknown = await f.api.post(agents, { name: "Bad", tools: ["no_such_tool"] }, { token: f.admin.token });
    expect(unknown.body.detail[0].msg).toMatch(/^Unknown tool: no_such_tool/);
    for (const [fields, loc] of bad) {
      const response = await f.api.patch(`${agents}${agent.id}`, fields, { token: f.admin.token });
      expect(response.status, JSON.stringify(fields)).toBe(422);
      expect(response.body.detail[0].loc, JSON.stringify(fields)).toEqual(loc);
    }
    expect(await counts()).toEqual(before);
    const unchanged = (await f.api.get(`${agents}${agent.id}`, { token: f.member.token })).body;
    expect(unchanged).toMatchObject({ tools: [], runtime_config: {} });

    // Good ones are stored as given; registry, platform and own ask_ tools are all names an agent may use.
    const good = await f.api.post(
      agents,
      {
        name: "Good Helper",
        tools: ["echo", "create_issue", "ask_good_helper"],
        runtime_config: {
          mcp_servers: [{ name: "files", url: "https://mcp.example/mcp", headers: { authorization: "Bearer x" } }],
          approval_required: ["*"],
          temperature: 0.3,
        },
      },
      { token: f.member.token },
    );
    expect(good.status).toBe(201);
    expect(good.body.runtime_config).toEqual({
      mcp_servers: [{ name: "files", url: "https://mcp.example/mcp", headers_set: ["authorization"] }],
      approval_required: ["*"],
      temperature: 0.3,
    });
  });

  it("only an admin may give an agent a stdio MCP server (a command run on this host)", async () => {
    const stdio = { mcp_servers: [{ name: "local", command: "node", args: ["server.js"] }] };
    const agents = `workspaces/${f.ws}/agents/`;
    const byMember = await f.api.post(agents, { name: "Local", runtime_config: stdio }, { token: f.member.token });
    expect(byMember.status).toBe(403);
    const own = await createAgent(f, { name: "Mine" }, f.member.token);
    const patched = await f.api.patch(`${agents}${own.id}`, { runtime_config: stdio }, { token: f.member.token });
    expect(patched.status).toBe(403);
    const byAdmin = await f.api.post(agents, { name: "Local", runtime_config: stdio }, { token: f.admin.token });
    expect(byAdmin.status).toBe(201);
  });
});
