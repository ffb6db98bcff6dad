import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { postAgui, seedRequest } from "../helpers/agui.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";
import { TestModelServer } from "../helpers/model-server.ts";
import { registryWith } from "../helpers/registry.ts";

describe.each(testDialects)("POST /agui streams a run (%s)", (dialect) => {
  let model: TestModelServer;
  let t: TestApp;
  beforeAll(async () => {
    model = await TestModelServer.start();
    const registry = registryWith({
      name: "slow_lookup",
      description: "Takes a while",
      inputSchema: { type: "object", properties: { q: { type: "string" } } },
      run: async () => {
        await new Promise((resolve) => setTimeout(resolve, 250));
        return { found: true };
      },
    });
    t = await startTestApp(dialect, {
      registry,
      env: { OPENAI_BASE_URL: model.url, AGENT_MODEL: "openai/test-model", AGUI_KEEPALIVE_MS: "50" },
    });
  });
  afterAll(async () => {
    await t.close();
    await model.close();
  });
  beforeEach(() => model.reset());

  it("GET /status says the agent is available", async () => {
    const response = await t.api.get("/status");
    expect(response).toMatchObject({ status: 200, body: { status: "available" } });
  });

  it("the seed's request gets the seed's events in the seed's order, ids echoed, event and data agreeing", async () => {
    model.reply({ text: ["Hello", " there", "!"] });
    const response = await postAgui(
      t.url,
      seedRequest("thread-seed-1", "run-seed-1", [{ id: "m1", role: "user", content: "Say hello" }]),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(response.headers.get("cache-control")).toBe("no-cache");
    expect(response.headers.get("x-accel-buffering")).toBe("no");
    expect(response.text).not.toContain("\r");

    expect(response.types).toEqual([
      "run_started",
      "text_message_start",
      "text_message_content",
      "text_message_content",
      "text_message_content",
      "text_message_end",
      "run_finished",
    ]);
    for (const frame of response.frames) {
      expect(frame.raw).toMatch(/^event: [a-z_]+\ndata: \{.*\}$/);
      expect(frame.event).toBe(frame.data.type);
    }
    const [started, start, , , , end, finished] = response.frames.map((frame) => frame.data);
    expect(started).toEqual({ type: "run_started", threadId: "thread-seed-1", runId: "run-seed-1" });
    expect(finished).toEqual({ type: "run_finished", threadId: "thread-seed-1", runId: "run-seed-1" });
    expect(start).toEqual({ type: "text_message_start", messageId: expect.any(String), role: "assistant" });
    expect(end).toEqual({ type: "text_message_end", messageId: start.messageId });
    const deltas = response.frames.filter((f) => f.data.type === "text_message_content").map((f) => f.data);
    expect(deltas.map((d) => d.delta).join("")).toBe("Hello there!");
    expect(deltas.every((d) => d.messageId === start.messageId)).toBe(true);

    // The model got the agent's instructions and the user's message, streaming.
    const sent = model.requests[0]?.body;
    expect(sent).toMatchObject({
      model: "test-model",
      stream: true,
      messages: [
        { role: "system", content: "You are a helpful assistant." },
        { role: "user", content: "Say hello" },
      ],
    });
  });

  it("a top-level messages array (RunAgentInput, snake_case here) gets the official UPPER_SNAKE events", async () => {
    model.reply({ text: "Official." });
    const response = await postAgui(t.url, {
      thread_id: "thread-official-1",
      run_id: "run-official-1",
      messages: [{ id: "u1", role: "user", content: [{ type: "text", text: "Hi" }] }],
      state: {},
      tools: [],
      context: [{ description: "User's time zone", value: "Europe/Paris" }],
      forwarded_props: {},
    });
    expect(response.types).toEqual([
      "RUN_STARTED",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_END",
      "RUN_FINISHED",
    ]);
    expect(response.frames.every((frame) => frame.event === frame.data.type)).toBe(true);
    expect(response.frames[0]?.data).toEqual({
      type: "RUN_STARTED",
      threadId: "thread-official-1",
      runId: "run-official-1",
    });
    const sent = model.requests[0]?.body;
    expect(sent.messages[0].content).toContain("User's time zone: Europe/Paris");
    expect(sent.messages[1]).toEqual({ role: "user", content: "Hi" });
  });

  it("?dialect= overrides the choice both ways", async () => {
    const official = await postAgui(
      t.url,
      seedRequest("thread-dialect-1", "r1", [{ id: "a", role: "user", content: "x" }]),
      {
        path: "/agui?dialect=ag-ui",
      },
    );
    expect(official.types[0]).toBe("RUN_STARTED");
    const lowercase = await postAgui(
      t.url,
      { threadId: "thread-dialect-2", runId: "r2", messages: [{ id: "b", role: "user", content: "y" }] },
      { path: "/agui?dialect=lowercase" },
    );
    expect(lowercase.types[0]).toBe("run_started");
    expect(lowercase.types.at(-1)).toBe("run_finished");
    const bad = await postAgui(t.url, seedRequest("t", "r", []), { path: "/agui?dialect=klingon" });
    expect(bad.status).toBe(422);
  });

  it("?dialect=seed, the old name of the lower-case naming, still gives lower-case events", async () => {
    const seed = await postAgui(
      t.url,
      { threadId: "thread-dialect-3", runId: "r3", messages: [{ id: "c", role: "user", content: "z" }] },
      { path: "/agui?dialect=seed" },
    );
    expect(seed.status).toBe(200);
    expect(seed.types[0]).toBe("run_started");
    expect(seed.types.at(-1)).toBe("run_finished");
    expect(seed.types.every((type) => type === type.toLowerCase())).toBe(true);
  });

  it("a tool call streams its start, arguments, end and result, then the model's answer", async () => {
    model.reply(
      { toolCalls: [{ id: "call_lookup", name: "slow_lookup", arguments: { q: "otters" } }] },
      { text: "Found it." },
    );
    const response = await postAgui(
      t.url,
      seedRequest("thread-tool-1", "run-tool-1", [{ id: "m1", role: "user", content: "Look up otters" }]),
    );
    expect(response.types).toEqual([
      "run_started",
      "tool_call_start",
      "tool_call_args",
      "tool_call_args",
      "tool_call_end",
      "tool_call_result",
      "text_message_start",
      "text_message_content",
      "text_message_content",
      "text_message_end",
      "run_finished",
    ]);
    const data = response.frames.map((frame) => frame.data);
    expect(data[1]).toEqual({
      type: "tool_call_start",
      toolCallId: "call_lookup",
      toolCallName: "slow_lookup",
      parentMessageId: expect.any(String),
    });
    const args = data
      .filter((d) => d.type === "tool_call_args")
      .map((d) => d.delta)
      .join("");
    expect(JSON.parse(args)).toEqual({ q: "otters" });
    expect(data[5]).toEqual({
      type: "tool_call_result",
      messageId: expect.any(String),
      toolCallId: "call_lookup",
      content: '{"found":true}',
      role: "tool",
    });
    // The tool took 250 ms; keep-alive comments (every 50 ms here) kept the stream warm meanwhile.
    expect(response.text).toMatch(/\n\n: keep-alive\n\n/);
    // The second model call carried the tool call and its result.
    expect(model.requests[1]?.body.messages.slice(-2)).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_lookup", type: "function", function: { name: "slow_lookup", arguments: '{"q":"otters"}' } },
        ],
      },
      { role: "tool", content: '{"found":true}', tool_call_id: "call_lookup" },
    ]);
  });
});
