// An issue assigned to an agent gets worked: the run, what the agent did as itself, and the run kept to read again.
import { HttpAgent, type RunAgentInput } from "@ag-ui/client";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { activityOf } from "../helpers/platform.ts";
import { registryWith } from "../helpers/registry.ts";
import {
  createAgent,
  createIssue,
  frameOf,
  readRunEvents,
  startWorkFixture,
  taskReaching,
  toolNamesOf,
  type WorkFixture,
} from "./helpers.ts";

const lookupTool = {
  name: "lookup_runbook",
  description: "Finds the runbook for a service",
  inputSchema: { type: "object" as const, properties: { service: { type: "string" } } },
  run: async (args: Record<string, unknown>) => ({ runbook: `https://runbooks.example/${args.service}` }),
};

describe.each(testDialects)("an issue assigned to an agent gets worked (%s)", (dialect) => {
  let f: WorkFixture;
  beforeAll(async () => {
    f = await startWorkFixture(dialect, { registry: registryWith(lookupTool) });
  });
  afterAll(() => f.close());
  beforeEach(() => f.model.reset());

  it("the agent works it as itself: comment, issue status, agent status, activity, and the run kept", async () => {
    const agent = await createAgent(f, {
      name: "Triage Bot",
      instructions: "You triage issues.",
      tools: ["lookup_runbook"],
    });
    expect(agent.status).toBe("offline"); // new agents work whatever their stored status
    const label = (await f.api.post(`workspaces/${f.ws}/labels`, { name: "frontend" }, { token: f.admin.token })).body;
    const parent = await createIssue(f, { title: "Auth epic" });
    const draft = await createIssue(f, {
      title: "Login button does nothing",
      description: "Clicking Login on Safari has no effect.",
      acceptance_criteria: ["Login works on Safari"],
      priority: "high",
      parent_issue_id: parent.id,
    });
    await f.api.post(`workspaces/${f.ws}/issues/${draft.id}/labels/${label.id}`, undefined, { token: f.member.token });
    const child = await createIssue(f, { title: "Add the Safari click handler", parent_issue_id: draft.id });
    await f.api.post(
      `workspaces/${f.ws}/issues/${draft.id}/comments`,
      { content: "Seen on iOS 17 too." },
      { token: f.member.token },
    );
    f.model.reply(
      {
        text: "Looking at it.",
        toolCalls: [{ name: "update_issue", arguments: { issue_id: draft.id, status: "in_review" } }],
      },
      { text: "I moved it to review: the Safari handler is missing." },
    );

    const assigned = await f.api.patch(
      `workspaces/${f.ws}/issues/${draft.id}`,
      { assignee_type: "agent", assignee_id: agent.id },
      { token: f.member.token },
    );
    expect(assigned.status).toBe(200);
    const task = await taskReaching(f, draft.id);
    expect(task).toMatchObject({
      agent_id: agent.id,
      issue_id: draft.id,
      trigger: "assigned",
      comment_id: null,
      status: "succeeded",
      attempt: 1,
      max_attempts: 3,
      error: null,
      run_id: expect.any(String),
    });

    // The model was told the issue, its thread and why, and got the platform tools plus its own registry tool.
    const first = f.model.requests[0]?.body;
    expect(first.messages[0]).toEqual({ role: "system", content: "You triage issues." });
    const frame = frameOf(first);
    for (const part of [
      draft.identifier,
      "Login button does nothing",
      "Clicking Login on Safari has no effect.",
      "Login works on Safari",
      "Priority: high",
      "Status: backlog",
      "frontend",
      parent.identifier,
      `${child.identifier} Add the Safari click handler (backlog)`,
      "Seen on iOS 17 too.",
      "assigned to you",
    ]) {
      expect(frame).toContain(part);
    }
    expect(toolNamesOf(first)).toEqual([
      "add_comment",
      "ask_human",
      "create_issue",
      "get_issue",
      "label_issue",
      "list_agents",
      "list_issues",
      "list_labels",
      "list_projects",
      "lookup_runbook",
      "update_issue",
    ]);

    // The answer is the agent's comment; the issue went in_progress, then where the agent put it.
    const comments = (await f.api.get(`workspaces/${f.ws}/issues/${draft.id}/comments`, { token: f.member.token }))
      .body;
    expect(comments.at(-1)).toMatchObject({
      author_type: "agent",
      author_id: agent.id,
      content: "I moved it to review: the Safari handler is missing.",
    });
    const issue = (await f.api.get(`workspaces/${f.ws}/issues/${draft.id}`, { token: f.member.token })).body;
    expect(issue.status).toBe("in_review");
    const byAgent = (await activityOf(f.t, f.ws)).filter(
      (row) => row.actor_type === "agent" && row.actor_id === agent.id,
    );
    expect(byAgent.map((row) => [row.action, row.details.changes?.status ?? row.details])).toEqual([
      ["agent.status_changed", { from: "offline", to: "working" }],
      ["issue.updated", { from: "backlog", to: "in_progress" }],
      ["issue.updated", { from: "in_progress", to: "in_review" }],
      ["comment.created", expect.objectContaining({ identifier: draft.identifier })],
      ["agent.status_changed", { from: "working", to: "idle" }],
    ]);
    const after = (await f.api.get(`workspaces/${f.ws}/agents/${agent.id}`, { token: f.member.token })).body;
    expect(after.status).toBe("idle");

    // The run is kept, with its usage (two model calls) and its events.
    const runs = (await f.api.get(`workspaces/${f.ws}/tasks/${task.id}/runs`, { token: f.member.token })).body;
    expect(runs).toEqual([
      {
        id: task.run_id,
        task_id: task.id,
        agent_id: agent.id,
        issue_id: draft.id,
        status: "succeeded",
        model: "openai/test-model",
        started_at: expect.any(String),
        finished_at: expect.any(String),
        usage: { input_tokens: 22, output_tokens: 14, cache_read_tokens: 0, cache_write_tokens: 0, cost_usd: null },
        error: null,
      },
    ]);
    const run = await f.api.get(`workspaces/${f.ws}/runs/${task.run_id}`, { token: f.member.token });
    expect(run).toMatchObject({ status: 200, body: runs[0] });

    const events = await readRunEvents(f, task.run_id);
    expect(events.status).toBe(200);
    expect(events.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(events.frames.map((frame) => frame.id)).toEqual(events.frames.map((_, index) => index + 1));
    const types = events.frames.map((frame) => frame.event);
    expect(types[0]).toBe("RUN_STARTED");
    expect(types.at(-1)).toBe("RUN_FINISHED");
    expect(events.frames.every((frame) => frame.data.type === frame.event)).toBe(true);
    expect(events.frames[0]?.data).toEqual({ type: "RUN_STARTED", threadId: task.id, runId: task.run_id });
    const toolStart = events.frames.find((frame) => frame.event === "TOOL_CALL_START")?.data;
    expect(toolStart.toolCallName).toBe("update_issue");
    const result = events.frames.find((frame) => frame.event === "TOOL_CALL_RESULT")?.data;
    expect(JSON.parse(result.content)).toMatchObject({ id: draft.id, status: "in_review" });
    const text = events.frames
      .filter((frame) => frame.event === "TEXT_MESSAGE_CONTENT")
      .map((frame) => frame.data.delta)
      .join("");
    expect(text).toBe("Looking at it.I moved it to review: the Safari handler is missing.");
  });

  it("@ag-ui/client renders a task run like a chat, and Last-Event-ID resumes after an event", async () => {
    const agent = await createAgent(f, { name: "Chatty" });
    f.model.reply(
      { text: "Checking.", toolCalls: [{ id: "call_1", name: "get_issue", arguments: {} }] },
      { text: "All good." },
    );
    const draft = await createIssue(f, { assignee_type: "agent", assignee_id: agent.id });
    const task = await taskReaching(f, draft.id);
    expect(task.trigger).toBe("assigned");

    /** The official client, reading our GET stream instead of posting a run. */
    class RunReader extends HttpAgent {
      protected override requestInit(_input: RunAgentInput): RequestInit {
        return { method: "GET", headers: { authorization: `Bearer ${f.member.token}`, accept: "text/event-stream" } };
      }
    }
    const reader = new RunReader({ url: `${f.t.url}/api/v1/workspaces/${f.ws}/runs/${task.run_id}/events` });
    const seen: string[] = [];
    await reader.runAgent({}, { onEvent: ({ event }) => void seen.push(event.type) });
    expect(seen[0]).toBe("RUN_STARTED");
    expect(seen.at(-1)).toBe("RUN_FINISHED");
    expect(reader.messages.map((message) => message.role)).toEqual(["assistant", "tool", "assistant"]);
    expect(reader.messages[0]).toMatchObject({
      content: "Checking.",
      toolCalls: [{ id: "call_1", function: { name: "get_issue" } }],
    });
    expect(reader.messages[1]).toMatchObject({ role: "tool", toolCallId: "call_1" });
    expect(reader.messages[2]).toMatchObject({ content: "All good." });

    const all = await readRunEvents(f, task.run_id);
    const resumed = await readRunEvents(f, task.run_id, { lastEventId: 3 });
    expect(resumed.frames).toEqual(all.frames.slice(3));
  });

  it("a subscriber sees the run live, event by event, until it ends", async () => {
    const agent = await createAgent(f, { name: "Slowpoke" });
    f.model.reply({ text: ["one", " two", " three", " four"], chunkDelayMs: 150 });
    const draft = await createIssue(f, { assignee_type: "agent", assignee_id: agent.id });
    const running = await taskReaching(f, draft.id, ["running"]);
    const response = await fetch(`${f.t.url}/api/v1/workspaces/${f.ws}/runs/${running.run_id}/events`, {
      headers: { authorization: `Bearer ${f.member.token}` },
    });
    const reader = response.body!.getReader();
    const arrivals: number[] = [];
    let text = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      arrivals.push(Date.now());
      text += new TextDecoder().decode(value);
    }
    expect(text).toContain("event: RUN_FINISHED");
    expect(arrivals.length).toBeGreaterThan(2); // arrived in pieces as the model streamed, not at the end
    const task = await taskReaching(f, draft.id);
    expect(task.status).toBe("succeeded");
  });

  it("an agent on the Anthropic protocol works an issue the same way", async () => {
    const { TestAnthropicServer } = await import("../helpers/anthropic-server.ts");
    const anthropic = await TestAnthropicServer.start();
    const g = await startWorkFixture(dialect, {
      env: { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: anthropic.url },
    });
    try {
      const agent = await createAgent(g, { name: "Claude", model: "anthropic/claude-test" });
      const draft = await createIssue(g);
      anthropic.reply(
        { toolUses: [{ id: "toolu_1", name: "add_comment", input: { issue_id: draft.id, content: "On it." } }] },
        { text: ["Commented", " already."] },
      );
      await g.api.patch(
        `workspaces/${g.ws}/issues/${draft.id}`,
        { assignee_type: "agent", assignee_id: agent.id },
        {
          token: g.member.token,
        },
      );
      const task = await taskReaching(g, draft.id);
      expect(task.status).toBe("succeeded");
      expect(anthropic.requests[0]?.body.model).toBe("claude-test");
      const comments = await eventually(async () => {
        const list = (await g.api.get(`workspaces/${g.ws}/issues/${draft.id}/comments`, { token: g.member.token }))
          .body;
        return list.length > 0 && list;
      }, "the agent's comment");
      // It commented itself during the run, so its last answer is not posted again.
      expect(
        comments.map((comment: { content: string; author_type: string }) => [comment.author_type, comment.content]),
      ).toEqual([["agent", "On it."]]);
    } finally {
      await g.close();
      await anthropic.close();
    }
  });
});
