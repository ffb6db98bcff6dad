import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ToolInvoker } from "../../src/tools/invoker.ts";
import type { Tool, ToolRegistry } from "../../src/tools/registry.ts";
import { createAgent, createApiKey, postAgui, seedRequest } from "../helpers/agui.ts";
import { createWorkspaceWithRoles, startTestApp, type TestApp, type WorkspaceWithRoles } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";
import { TestModelServer } from "../helpers/model-server.ts";
import { registryWith } from "../helpers/registry.ts";

const roles = (messages: { role: string }[]) => messages.map((message) => message.role);

describe.each(testDialects)("agent runtime (%s)", (dialect) => {
  let model: TestModelServer;
  let t: TestApp;
  let team: WorkspaceWithRoles;
  let registry: ToolRegistry;
  const statusSeenByTool: string[] = [];
  let agentId: string;

  beforeAll(async () => {
    model = await TestModelServer.start();
    const tools: Tool[] = [
      {
        name: "agent_status_probe",
        description: "Reports the calling agent's status as stored",
        inputSchema: { type: "object", properties: {} },
        run: async (_args, ctx) => {
          const row = await t.db
            .selectFrom("agents")
            .select("status")
            .where("id", "=", ctx.agentId ?? "")
            .executeTakeFirst();
          statusSeenByTool.push(row?.status ?? "none");
          return { status: row?.status, workspaceId: ctx.workspaceId, agentId: ctx.agentId };
        },
      },
      {
        name: "explode",
        description: "Always fails",
        inputSchema: { type: "object", properties: { n: { type: "integer" } } },
        run: async () => {
          throw new Error("boom");
        },
      },
      {
        name: "not_for_agents",
        description: "A custom tool the platform agent does not name",
        inputSchema: { type: "object", properties: {} },
        run: async () => "nope",
      },
    ];
    registry = registryWith(...tools);
    t = await startTestApp(dialect, {
      registry,
      env: { OPENAI_BASE_URL: model.url, AGENT_MODEL: "openai/default-model", AGENT_MAX_STEPS: "3" },
    });
    team = await createWorkspaceWithRoles(t.api);
    agentId = await createAgent(t.api, team.owner.token, team.workspaceId, {
      name: "Release Helper",
      description: "Knows the release calendar.",
      model: "openai/helper-model",
      instructions: "You help with releases.",
      tools: ["agent_status_probe", "explode"],
    });
  });
  afterAll(async () => {
    await t.close();
    await model.close();
  });
  beforeEach(() => model.reset());

  const asMember = () => ({ authorization: `Bearer ${team.member.token}` });

  it("a platform agent runs with its own model, instructions and only the tools it names", async () => {
    model.reply({ toolCalls: [{ name: "agent_status_probe", arguments: {} }] }, { text: "Done." });
    const response = await postAgui(
      t.url,
      seedRequest("agent-thread-1", "run-1", [{ id: "a1", role: "user", content: "Status?" }]),
      { path: `/agui?agent=${agentId}`, headers: asMember() },
    );
    expect(response.types.at(-1)).toBe("run_finished");
    const first = model.requests[0]?.body;
    expect(first.model).toBe("helper-model");
    expect(first.messages[0]).toEqual({ role: "system", content: "You help with releases." });
    // ask_human is in every run of a platform agent (spec control.md §3).
    expect(first.tools.map((tool: { function: { name: string } }) => tool.function.name).sort()).toEqual([
      "agent_status_probe",
      "ask_human",
      "explode",
    ]);
    // While it ran, the agent was working, and its tools acted inside its workspace as the agent.
    expect(statusSeenByTool.at(-1)).toBe("working");
    const result = response.frames.find((frame) => frame.data.type === "tool_call_result")?.data;
    expect(JSON.parse(result.content)).toEqual({ status: "working", workspaceId: team.workspaceId, agentId });

    const agent = await t.db.selectFrom("agents").select("status").where("id", "=", agentId).executeTakeFirstOrThrow();
    expect(agent.status).toBe("idle");
    const activity = await t.db
      .selectFrom("activity")
      .select(["action", "actor_type", "actor_id", "details"])
      .where("entity_id", "=", agentId)
      .orderBy("created_at")
      .execute();
    const statusChanges = activity.filter((row) => row.action === "agent.status_changed");
    expect(statusChanges.map((row) => JSON.parse(row.details))).toEqual([
      { from: "idle", to: "working" },
      { from: "working", to: "idle" },
    ]);
    expect(statusChanges.every((row) => row.actor_type === "agent" && row.actor_id === agentId)).toBe(true);
  });

  it("in a chat nobody waits for a resumed run: ask_human answers that the question goes in the reply", async () => {
    model.reply(
      { toolCalls: [{ id: "call_ask", name: "ask_human", arguments: { question: "Which release?" } }] },
      { text: "Which release do you mean?" },
    );
    const response = await postAgui(
      t.url,
      seedRequest("agent-thread-ask", "run-ask", [{ id: "q1", role: "user", content: "Ship it" }]),
      { path: `/agui?agent=${agentId}`, headers: asMember() },
    );
    expect(response.types.at(-1)).toBe("run_finished");
    const result = response.frames.find((frame) => frame.data.type === "tool_call_result")?.data;
    expect(result.content).toMatch(/^Error: Nobody can be asked from here.*ask them directly in your reply/);
    expect((await t.db.selectFrom("questions").select("id").execute()).length).toBe(0);
  });

  it("a failing run leaves the agent in error, with activity", async () => {
    model.reply({ status: 400, message: "bad request" });
    const response = await postAgui(
      t.url,
      seedRequest("agent-thread-fail", "r", [{ id: "f1", role: "user", content: "x" }]),
      {
        path: `/agui?agent=${agentId}`,
        headers: asMember(),
      },
    );
    expect(response.types).toEqual(["run_started", "run_error"]);
    const agent = await t.db.selectFrom("agents").select("status").where("id", "=", agentId).executeTakeFirstOrThrow();
    expect(agent.status).toBe("error");
    const last = await t.db
      .selectFrom("activity")
      .select(["action", "details"])
      .where("entity_id", "=", agentId)
      .orderBy("created_at", "desc")
      .executeTakeFirstOrThrow();
    expect(last.action).toBe("agent.status_changed");
    expect(JSON.parse(last.details)).toEqual({ from: "working", to: "error" });
  });

  it("workspace agents: outsiders get 404, a workspace API key works through forwardedProps.agentId", async () => {
    const outsider = await postAgui(t.url, seedRequest("o", "r", [{ id: "o1", role: "user", content: "x" }]), {
      path: `/agui?agent=${agentId}`,
      headers: { authorization: `Bearer ${team.outsider.token}` },
    });
    expect(outsider).toMatchObject({ status: 404, json: { detail: "Agent not found" } });

    const key = await createApiKey(t.api, team.owner.token, team.workspaceId);
    model.reply({ text: "Hi from the helper." });
    const response = await postAgui(
      t.url,
      {
        threadId: "key-thread",
        runId: "r",
        messages: [{ id: "k1", role: "user", content: "hi" }],
        forwardedProps: { agentId },
      },
      { headers: { "x-api-key": key } },
    );
    expect(response.types.at(-1)).toBe("RUN_FINISHED");
    expect(model.requests[0]?.body.model).toBe("helper-model");
  });

  it("tool failures go back to the model as results; the run goes on", async () => {
    model.reply(
      {
        toolCalls: [
          { id: "c1", name: "explode", arguments: {} },
          { id: "c2", name: "no_such_tool", arguments: {} },
          { id: "c3", name: "explode", arguments: { n: "not a number" } },
          { id: "c4", name: "explode", arguments: "{broken json" },
        ],
      },
      { text: "Sorry, the tools failed." },
    );
    const response = await postAgui(
      t.url,
      seedRequest("tool-errors", "r", [{ id: "e1", role: "user", content: "go" }]),
      {
        path: `/agui?agent=${agentId}`,
        headers: asMember(),
      },
    );
    expect(response.types.at(-1)).toBe("run_finished");
    const results = Object.fromEntries(
      response.frames
        .filter((frame) => frame.data.type === "tool_call_result")
        .map((frame) => [frame.data.toolCallId, frame.data.content]),
    );
    expect(results).toEqual({
      c1: "Error: boom",
      c2: "Error: Unknown tool: no_such_tool",
      c3: "Error: Invalid arguments for explode: n must be integer",
      c4: "Error: Arguments for explode are not valid JSON",
    });
    const toolMessages = model.requests[1]?.body.messages.filter((m: { role: string }) => m.role === "tool");
    expect(toolMessages.map((m: { tool_call_id: string }) => m.tool_call_id)).toEqual(["c1", "c2", "c3", "c4"]);
    expect(toolMessages.map((m: { content: string }) => m.content)).toEqual(
      ["c1", "c2", "c3", "c4"].map((id) => results[id]),
    );
  });

  it("the step limit ends a run that only ever calls tools", async () => {
    model.setDefault({ toolCalls: [{ name: "explode", arguments: {} }] });
    try {
      const response = await postAgui(t.url, seedRequest("loop", "r", [{ id: "l1", role: "user", content: "loop" }]), {
        path: `/agui?agent=${agentId}`,
        headers: asMember(),
      });
      expect(response.types.at(-1)).toBe("run_error");
      expect(response.frames.at(-1)?.data).toEqual({
        type: "run_error",
        code: "step_limit",
        message: "The agent stopped after 3 model calls without a final answer",
      });
      expect(model.requests).toHaveLength(3);
    } finally {
      model.setDefault({ text: "Hello from the test model." });
    }
  });

  it("two runs on one thread keep history; another caller's thread of the same id is separate", async () => {
    model.reply({ text: "Paris." }, { text: "About 2 million." }, { text: "Hello stranger." });
    await postAgui(t.url, seedRequest("history", "r1", [{ id: "h1", role: "user", content: "Capital of France?" }]), {
      headers: asMember(),
    });
    await postAgui(t.url, seedRequest("history", "r2", [{ id: "h2", role: "user", content: "Population?" }]), {
      headers: asMember(),
    });
    expect(model.requests[1]?.body.messages).toEqual([
      { role: "system", content: "You are a helpful assistant." },
      { role: "user", content: "Capital of France?" },
      { role: "assistant", content: "Paris." },
      { role: "user", content: "Population?" },
    ]);
    await postAgui(t.url, seedRequest("history", "r3", [{ id: "h3", role: "user", content: "Who am I?" }]), {
      headers: { authorization: `Bearer ${team.admin.token}` },
    });
    expect(roles(model.requests[2]?.body.messages)).toEqual(["system", "user"]);
  });

  it("two runs at once on one thread both finish and both exchanges are stored", async () => {
    model.reply({ text: "A.", chunkDelayMs: 5 }, { text: "B.", chunkDelayMs: 5 });
    const [first, second] = await Promise.all(
      ["x", "y"].map((id) =>
        postAgui(t.url, seedRequest("together", `r-${id}`, [{ id, role: "user", content: `question ${id}` }]), {
          headers: asMember(),
        }),
      ),
    );
    expect([first?.types.at(-1), second?.types.at(-1)]).toEqual(["run_finished", "run_finished"]);
    const stored = await t.db
      .selectFrom("thread_messages")
      .innerJoin("agent_threads", "agent_threads.id", "thread_messages.thread_row_id")
      .select(["thread_messages.seq", "thread_messages.content"])
      .where("agent_threads.thread_id", "=", "together")
      .orderBy("thread_messages.seq")
      .execute();
    expect(stored.map((row) => row.seq)).toEqual([1, 2, 3, 4]);
    expect(stored.map((row) => row.content).sort()).toEqual(["A.", "B.", "question x", "question y"]);
  });

  it("a request carrying the full history is not stored twice", async () => {
    model.reply({ text: "One." }, { text: "Two." });
    const first = await postAgui(t.url, seedRequest("full", "r1", [{ id: "f1", role: "user", content: "Count" }]), {
      headers: asMember(),
    });
    const answerId = first.frames.find((frame) => frame.data.type === "text_message_start")?.data.messageId;
    await postAgui(
      t.url,
      seedRequest("full", "r2", [
        { id: "f1", role: "user", content: "Count" },
        { id: answerId, role: "assistant", content: "One." },
        { id: "f2", role: "user", content: "Again" },
      ]),
      { headers: asMember() },
    );
    expect(model.requests[1]?.body.messages.map((m: { content: string }) => m.content)).toEqual([
      "You are a helpful assistant.",
      "Count",
      "One.",
      "Again",
    ]);
    const stored = await t.db
      .selectFrom("thread_messages")
      .innerJoin("agent_threads", "agent_threads.id", "thread_messages.thread_row_id")
      .select(["thread_messages.role", "thread_messages.content"])
      .where("agent_threads.thread_id", "=", "full")
      .orderBy("thread_messages.seq")
      .execute();
    expect(stored.map((row) => row.content)).toEqual(["Count", "One.", "Again", "Two."]);
  });

  it("ask_<agent> through the registry runs the agent; session_id continues its conversation", async () => {
    const scope = { workspaceId: team.workspaceId, userId: team.member.user.id };
    expect((await registry.list({})).map((tool) => tool.name)).not.toContain("ask_release_helper");
    const names = (await registry.list(scope)).map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(["list_agents", "ask_release_helper"]));

    const listAgents = (await registry.find("list_agents", scope))!;
    const listed = await new ToolInvoker(registry).call(listAgents, {}, scope);
    expect(listed).toMatchObject({
      ok: true,
      value: [{ id: agentId, name: "Release Helper", tool: "ask_release_helper", model: "openai/helper-model" }],
    });

    const ask = (await registry.find("ask_release_helper", scope))!;
    model.reply({ text: "The next release is Friday." }, { text: "At noon." });
    const first = await new ToolInvoker(registry).call(ask, { message: "When is the next release?" }, scope);
    expect(first).toMatchObject({
      ok: true,
      value: { agent: "Release Helper", response: "The next release is Friday.", session_id: expect.any(String) },
    });
    expect(model.requests[0]?.body).toMatchObject({
      model: "helper-model",
      messages: [
        { role: "system", content: "You help with releases." },
        { role: "user", content: "When is the next release?" },
      ],
    });
    const sessionId = (first as { value: { session_id: string } }).value.session_id;
    const second = await new ToolInvoker(registry).call(ask, { message: "What time?", session_id: sessionId }, scope);
    expect(second).toMatchObject({ ok: true, value: { response: "At noon.", session_id: sessionId } });
    expect(roles(model.requests[1]?.body.messages)).toEqual(["system", "user", "assistant", "user"]);

    const missing = await new ToolInvoker(registry).call(ask, {}, scope);
    expect(missing).toEqual({
      ok: false,
      error: "Invalid arguments for ask_release_helper: arguments must have required property 'message'",
    });
  });

  it("agents asking agents stop at a depth limit instead of looping forever", async () => {
    const loopId = await createAgent(t.api, team.owner.token, team.workspaceId, {
      name: "Echo Chamber",
      model: "openai/echo-model",
      tools: ["ask_echo_chamber"],
    });
    // Every model call asks the same agent again.
    model.setDefault({ toolCalls: [{ name: "ask_echo_chamber", arguments: { message: "again" } }] });
    try {
      const response = await postAgui(t.url, seedRequest("echo", "r", [{ id: "z1", role: "user", content: "go" }]), {
        path: `/agui?agent=${loopId}`,
        headers: asMember(),
      });
      const results = response.frames.filter((frame) => frame.data.type === "tool_call_result");
      expect(results.length).toBeGreaterThan(0);
      // Runs nest three deep; the innermost call is refused and that refusal goes back to the model as a result.
      const nested = model.requests.filter((request) =>
        request.body.messages.some((m: { content?: string }) => m.content?.includes("at most 3 levels deep")),
      );
      expect(nested.length).toBeGreaterThan(0);
      expect(response.types.at(-1)).toBe("run_error"); // the outer run then hits its own step limit
    } finally {
      model.setDefault({ text: "Hello from the test model." });
      await t.api.delete(`workspaces/${team.workspaceId}/agents/${loopId}`, { token: team.owner.token });
    }
  });
});
