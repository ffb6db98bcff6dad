// Claims from the one queue (spec runtimes.md §2-3): runner-bound agents' tasks go to runners only, in-process ones
// never do; the assignment carries the frame, a task token and the platform's addresses; the long poll wakes on new
// work; two runners never get one task; the agent's and the runtime's max_concurrent_tasks hold.

import { setTimeout as sleep } from "node:timers/promises";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApiResponse } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { activityOf } from "../helpers/platform.ts";
import { countStatements } from "../helpers/statements.ts";
import { connectClient } from "../mcp/helpers.ts";
import { createAgent, createIssue, taskReaching } from "../work/helpers.ts";
import {
  assignIssue,
  claimAll,
  createBoundAgent,
  FakeRunner,
  type RuntimeFixture,
  startRuntimeFixture,
} from "./helpers.ts";

describe.each(testDialects)("claims (%s)", (dialect) => {
  let f: RuntimeFixture;
  beforeAll(async () => {
    f = await startRuntimeFixture(dialect);
  });
  afterAll(() => f.close());

  it("a bound agent's task goes to a runner with its frame, a task token and the platform's addresses", async () => {
    const runner = new FakeRunner(f);
    await runner.register([{ name: "sh", kind: "command", max_concurrent_tasks: 4 }]);
    const agent = await createBoundAgent(f, [{ kind: "command" }], { instructions: "Be brief." });
    const before = f.model.requests.length;
    const issue = await assignIssue(f, agent.id, { description: "The button is blue" });
    const [assignment] = await claimAll(runner, 1);
    expect(assignment).toMatchObject({
      runtime_id: runner.runtimeId("sh"),
      attempt: 1,
      agent: { id: agent.id, name: agent.name, instructions: "Be brief." },
      issue: { id: issue.id, identifier: issue.identifier, title: "Fix the login page" },
      platform: { url: f.t.url, mcp_url: `${f.t.url}/mcp` },
      resume: null,
      comments: [],
    });
    expect(assignment.task).toMatchObject({ id: expect.any(String), issue_id: issue.id, status: "running" });
    expect(assignment.token).toMatch(/^apt_/);
    expect(assignment.prompt).toContain(`# ${issue.identifier}: Fix the login page`);
    expect(assignment.prompt).toContain("the issue was assigned to you");
    expect(assignment.prompt).toContain("The button is blue");
    expect(assignment.prompt).toContain("Be brief.");
    expect(assignment.prompt).toContain(`${f.t.url}/mcp`);
    const task = (await f.api.get(`workspaces/${f.ws}/tasks/${assignment.task.id}`, { token: f.member.token })).body;
    expect(task).toMatchObject({ status: "running", attempt: 1, run_id: assignment.run_id });
    const run = (await f.api.get(`workspaces/${f.ws}/runs/${assignment.run_id}`, { token: f.member.token })).body;
    expect(run).toMatchObject({ status: "running", model: "command:sh", task_id: assignment.task.id });
    const runtimes = (await f.api.get(`workspaces/${f.ws}/runtimes`, { token: f.member.token })).body;
    expect(runtimes.find((each: { id: string }) => each.id === runner.runtimeId("sh")).running_tasks).toBe(1);
    await eventually(
      async () =>
        (await f.api.get(`workspaces/${f.ws}/issues/${issue.id}`, { token: f.member.token })).body.status ===
        "in_progress",
      "the issue to move to in_progress",
    );
    // Moved as the agent's own change, recorded as any edit of the issue is.
    const moved = (await activityOf(f.t, f.ws)).filter(
      (row) => row.action === "issue.updated" && row.entity_id === issue.id,
    );
    expect(moved).toEqual([
      expect.objectContaining({
        actor_type: "agent",
        actor_id: agent.id,
        details: { identifier: issue.identifier, changes: { status: { from: "backlog", to: "in_progress" } } },
      }),
    ]);
    expect(f.model.requests.length).toBe(before);
  });

  it("a thread longer than 200 comments reaches the runner as its newest 200, oldest first", async () => {
    const runner = new FakeRunner(f);
    await runner.register([{ name: "sh", kind: "command" }]);
    const agent = await createBoundAgent(f, [{ kind: "command" }]);
    const issue = await createIssue(f);
    for (let index = 1; index <= 202; index++) {
      const response = await f.api.post(
        `workspaces/${f.ws}/issues/${issue.id}/comments`,
        { content: `Comment ${index}` },
        { token: f.member.token },
      );
      expect(response.status).toBe(201);
    }
    const assigned = await f.api.patch(
      `workspaces/${f.ws}/issues/${issue.id}`,
      { assignee_type: "agent", assignee_id: agent.id },
      { token: f.member.token },
    );
    expect(assigned.status).toBe(200);
    const [assignment] = await claimAll(runner, 1);
    const contents = assignment.comments.map((comment: { content: string }) => comment.content);
    expect(contents).toHaveLength(200);
    expect([contents[0], contents.at(-1)]).toEqual(["Comment 3", "Comment 202"]);
  });

  it("runners never take an in-process agent's task; the worker never takes a bound agent's", async () => {
    const runner = new FakeRunner(f);
    await runner.register([{ name: "sh", kind: "command" }]);
    f.model.setDefault({ text: "Done in-process" });
    const local = await createAgent(f, { name: "Local" });
    const localIssue = await createIssue(f, { assignee_type: "agent", assignee_id: local.id });
    expect((await runner.claim({ wait_ms: 0 })).body).toEqual({ tasks: [] });
    expect((await taskReaching(f, localIssue.id)).status).toBe("succeeded");
    const bound = await createBoundAgent(f, [{ kind: "codex" }]);
    const waiting = await assignIssue(f, bound.id);
    expect((await runner.claim({ wait_ms: 300 })).body).toEqual({ tasks: [] });
    const [task] = (await f.api.get(`workspaces/${f.ws}/issues/${waiting.id}/tasks`, { token: f.member.token })).body;
    expect(task.status).toBe("queued");
    const requests = f.model.requests.filter((request) => JSON.stringify(request.body).includes(waiting.identifier));
    expect(requests).toEqual([]);
    await f.api.post(`workspaces/${f.ws}/tasks/${task.id}/cancel`, {}, { token: f.member.token });
  });

  it("a long poll answers as soon as a task is queued", async () => {
    const runner = new FakeRunner(f);
    await runner.register([{ name: "poll", kind: "command", tags: ["poll"] }]);
    const agent = await createBoundAgent(f, [{ tags: ["poll"] }]);
    const polling = runner.claim({ wait_ms: 25_000 });
    const issue = await assignIssue(f, agent.id);
    const answer = await polling;
    expect(answer.status).toBe(200);
    expect(answer.body.tasks.map((task: { issue: { id: string } }) => task.issue.id)).toEqual([issue.id]);
  });

  it("two runners claiming at once never get the same task", async () => {
    const tag = "race";
    const runners = [new FakeRunner(f), new FakeRunner(f)];
    for (const runner of runners)
      await runner.register([{ name: "sh", kind: "command", tags: [tag], max_concurrent_tasks: 20 }]);
    const agents = [];
    for (let index = 0; index < 4; index++) {
      agents.push(await createBoundAgent(f, [{ tags: [tag] }], { max_concurrent_tasks: 5 }));
    }
    const issues = [];
    for (let index = 0; index < 12; index++) issues.push(await assignIssue(f, agents[index % 4].id));
    // Both claim side by side until the queue is empty (SKIP LOCKED may hand one of them nothing in a round).
    const all: string[] = [];
    await Promise.all(
      runners.map(async (runner) => {
        for (let round = 0; round < 50 && new Set(all).size < 12; round++) {
          const response = await runner.claim({ max_tasks: 2, wait_ms: 0 });
          all.push(...response.body.tasks.map((task: { task: { id: string } }) => task.task.id));
        }
      }),
    );
    expect(new Set(all).size).toBe(all.length);
    expect(all).toHaveLength(12);
  });

  it.runIf(dialect === "postgres")(
    "a claim passes by an agent another transaction holds, takes the rest, and that one's task once it is free",
    async () => {
      const tag = "held";
      const runner = new FakeRunner(f);
      await runner.register([{ name: "sh", kind: "command", tags: [tag], max_concurrent_tasks: 4 }]);
      const first = await createBoundAgent(f, [{ tags: [tag] }]);
      const second = await createBoundAgent(f, [{ tags: [tag] }]);
      const firstIssue = await assignIssue(f, first.id);
      const secondIssue = await assignIssue(f, second.id);
      // What another runner's claim or a report of the second agent holds while it works: the agent's lock.
      const other = new pg.Client({ connectionString: f.t.databaseUrl });
      await other.connect();
      try {
        await other.query("begin");
        await other.query("select pg_advisory_xact_lock(hashtext($1))", [`agent-work:${second.id}`]);
        const claimed = await Promise.race([runner.claim({ max_tasks: 2, wait_ms: 0 }), stillWaiting(5_000)]);
        expect(claimed).not.toBe("still waiting");
        const issuesOf = (answer: unknown) =>
          (answer as ApiResponse).body.tasks.map((task: { issue: { id: string } }) => task.issue.id);
        expect(issuesOf(claimed)).toEqual([firstIssue.id]);
        // Then it takes the first agent's lock too, as a claim holding both would: no deadlock (that claim ended).
        await other.query("select pg_advisory_xact_lock(hashtext($1))", [`agent-work:${first.id}`]);
        await other.query("commit");
        // A long poll that passed the second agent by looks again once it is free (no signal says so).
        await other.query("begin");
        await other.query("select pg_advisory_xact_lock(hashtext($1))", [`agent-work:${second.id}`]);
        const polling = runner.claim({ max_tasks: 2, wait_ms: 10_000 });
        await sleep(300); // the claim's first look, which passes the agent by
        await other.query("commit");
        const polled = await Promise.race([polling, stillWaiting(5_000)]);
        expect(polled).not.toBe("still waiting");
        expect(issuesOf(polled)).toEqual([secondIssue.id]);
      } finally {
        await other.end();
      }
    },
  );

  it("a long poll while every queued task waits for its agent's room rests until room is made", async () => {
    const runner = new FakeRunner(f);
    await runner.register([{ name: "sh", kind: "command", tags: ["room"], max_concurrent_tasks: 4 }]);
    const agent = await createBoundAgent(f, [{ tags: ["room"] }], { max_concurrent_tasks: 1 });
    await assignIssue(f, agent.id);
    const second = await assignIssue(f, agent.id);
    expect((await runner.claim({ max_tasks: 4, wait_ms: 0 })).body.tasks).toHaveLength(1);
    // The second task is claimable by time, not by room: the poll waits for a signal instead of claiming again and
    // again (it looked every 5 ms before).
    const claims = countStatements(/pg_try_advisory_xact_lock|"runtime_select" is not null/);
    expect((await runner.claim({ max_tasks: 4, wait_ms: 600 })).body).toEqual({ tasks: [] });
    expect(claims.stop()).toBeLessThanOrEqual(4);
    // Room made (max_concurrent_tasks raised) wakes it.
    const polling = runner.claim({ max_tasks: 4, wait_ms: 10_000 });
    await sleep(100);
    const raised = await f.api.patch(
      `workspaces/${f.ws}/agents/${agent.id}`,
      { max_concurrent_tasks: 2 },
      { token: f.owner.token },
    );
    expect(raised.status).toBe(200);
    const polled = await Promise.race([polling, stillWaiting(5_000)]);
    expect(polled).not.toBe("still waiting");
    expect((polled as ApiResponse).body.tasks.map((task: { issue: { id: string } }) => task.issue.id)).toEqual([
      second.id,
    ]);
  });

  it("the agent's and the runtime's max_concurrent_tasks hold", async () => {
    const runner = new FakeRunner(f);
    await runner.register([
      { name: "one", kind: "gemini", tags: ["limits"], max_concurrent_tasks: 1 },
      { name: "many", kind: "opencode", tags: ["limits"], max_concurrent_tasks: 10 },
    ]);
    const single = await createBoundAgent(f, [{ kind: "opencode", tags: ["limits"] }], { max_concurrent_tasks: 1 });
    await assignIssue(f, single.id);
    await assignIssue(f, single.id);
    const first = (await runner.claim({ max_tasks: 5 })).body.tasks;
    expect(first).toHaveLength(1);
    expect((await runner.claim({ max_tasks: 5 })).body.tasks).toEqual([]);
    const gemini = [await createBoundAgent(f, [{ kind: "gemini" }]), await createBoundAgent(f, [{ kind: "gemini" }])];
    for (const agent of gemini) await assignIssue(f, agent.id);
    const claimed = (await runner.claim({ max_tasks: 5 })).body.tasks;
    expect(claimed.map((task: { runtime_id: string }) => task.runtime_id)).toEqual([runner.runtimeId("one")]);
  });

  it("a task token acts as the agent on the API and /mcp while the task runs, never as an admin, 401 after", async () => {
    const runner = new FakeRunner(f);
    await runner.register([{ name: "tok", kind: "command", tags: ["token"] }]);
    const agent = await createBoundAgent(f, [{ tags: ["token"] }]);
    const issue = await assignIssue(f, agent.id);
    const [assignment] = await claimAll(runner, 1);
    const token = assignment.token;
    const comment = await f.api.post(`workspaces/${f.ws}/issues/${issue.id}/comments`, { content: "On it" }, { token });
    expect(comment.status).toBe(201);
    expect(comment.body).toMatchObject({ author_type: "agent", author_id: agent.id });
    expect((await f.api.get(`workspaces/${f.ws}/issues/${issue.id}`, { token })).status).toBe(200);
    expect((await f.api.get(`workspaces/${f.otherWs}/issues/`, { token })).status).toBe(403);
    expect((await f.api.post(`workspaces/${f.ws}/runner-tokens`, { name: "x" }, { token })).status).toBe(403);
    expect((await f.api.post(`workspaces/${f.ws}/api-keys`, { name: "x" }, { token })).status).toBe(403);
    expect((await f.api.post("workspaces/", { name: "Mine" }, { token })).status).toBe(403);
    expect((await runner.call("heartbeat", {})).status).toBe(200);
    expect((await f.api.post("runner/heartbeat", { runner_id: runner.runnerId }, { token })).status).toBe(401);

    const client = await connectClient(
      new StreamableHTTPClientTransport(new URL("/mcp", f.t.url), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(["get_issue", "add_comment", "update_issue", "create_issue"]));
      const added = await client.callTool({
        name: "add_comment",
        arguments: { issue_id: issue.id, content: "Through MCP" },
      });
      expect(added.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    const comments = (await f.api.get(`workspaces/${f.ws}/issues/${issue.id}/comments`, { token: f.member.token }))
      .body;
    expect(comments.map((each: { author_type: string; content: string }) => [each.author_type, each.content])).toEqual([
      ["agent", "On it"],
      ["agent", "Through MCP"],
    ]);

    await f.api.post(`workspaces/${f.ws}/tasks/${assignment.task.id}/cancel`, {}, { token: f.member.token });
    const refused = await f.api.get(`workspaces/${f.ws}/issues/${issue.id}`, { token });
    expect(refused.status).toBe(401);
    expect(refused.body.detail).toBe("Invalid task token, or its task has ended");
    const mcp = await f.api.post("/mcp", { jsonrpc: "2.0", id: 1, method: "tools/list" }, { token });
    expect(mcp.status).toBe(401);
  });

  it("a runtime binding without selectors is a 422 naming runtime_config.runtime", async () => {
    for (const runtime of [{}, { select: [] }, { select: [{ kind: "robot" }] }]) {
      const response = await f.api.post(
        `workspaces/${f.ws}/agents/`,
        { name: "Nowhere", runtime_config: { runtime } },
        { token: f.owner.token },
      );
      expect(response.status, JSON.stringify(runtime)).toBe(422);
      expect(response.body.detail[0].loc.slice(0, 4)).toEqual(["body", "runtime_config", "runtime", "select"]);
    }
  });
});

/** Resolves after `ms` with a marker a test's answer is never equal to: a bound on a wait, not a measurement. */
const stillWaiting = (ms: number) => sleep(ms).then(() => "still waiting" as const);
