// The official client, unchanged, against our endpoint: what it received is what a CopilotKit app would show.
import { type BaseEvent, HttpAgent } from "@ag-ui/client";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";
import { TestModelServer } from "../helpers/model-server.ts";
import { registryWith } from "../helpers/registry.ts";

describe.each(testDialects)("@ag-ui/client HttpAgent against POST /agui (%s)", (dialect) => {
  let model: TestModelServer;
  let t: TestApp;
  beforeAll(async () => {
    model = await TestModelServer.start();
    const registry = registryWith({
      name: "get_weather",
      description: "Weather in a city",
      inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      run: async (args) => ({ city: args.city, sky: "sunny", celsius: 21 }),
    });
    t = await startTestApp(dialect, {
      registry,
      env: { OPENAI_BASE_URL: model.url, AGENT_MODEL: "openai/test-model" },
    });
  });
  afterAll(async () => {
    await t.close();
    await model.close();
  });
  beforeEach(() => model.reset());

  function agentFor(threadId: string) {
    const agent = new HttpAgent({ url: `${t.url}/agui`, threadId });
    const events: BaseEvent[] = [];
    const subscriber = { onEvent: ({ event }: { event: BaseEvent }) => void events.push(event) };
    return { agent, events, subscriber };
  }

  it("receives text and a tool call with its result, and keeps the messages", async () => {
    model.reply(
      { text: "Let me check.", toolCalls: [{ id: "call_w1", name: "get_weather", arguments: { city: "Paris" } }] },
      { text: "It is sunny in Paris, 21°C." },
    );
    const { agent, events, subscriber } = agentFor("thread-client-1");
    agent.addMessage({ id: "u1", role: "user", content: "Weather in Paris?" });
    const result = await agent.runAgent({ runId: "run-client-1" }, subscriber);

    expect(events.map((event) => event.type)).toEqual([
      "RUN_STARTED",
      "TEXT_MESSAGE_START",
      ...Array(3).fill("TEXT_MESSAGE_CONTENT"),
      "TEXT_MESSAGE_END",
      "TOOL_CALL_START",
      "TOOL_CALL_ARGS",
      "TOOL_CALL_ARGS",
      "TOOL_CALL_END",
      "TOOL_CALL_RESULT",
      "TEXT_MESSAGE_START",
      ...Array(6).fill("TEXT_MESSAGE_CONTENT"),
      "TEXT_MESSAGE_END",
      "RUN_FINISHED",
    ]);
    expect(events[0]).toMatchObject({ threadId: "thread-client-1", runId: "run-client-1" });
    expect(events.at(-1)).toMatchObject({ type: "RUN_FINISHED", threadId: "thread-client-1", runId: "run-client-1" });

    const messages = agent.messages;
    expect(messages).toHaveLength(4);
    expect(messages[0]).toMatchObject({ id: "u1", role: "user", content: "Weather in Paris?" });
    expect(messages[1]).toMatchObject({
      role: "assistant",
      content: "Let me check.",
      toolCalls: [
        { id: "call_w1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
      ],
    });
    expect(messages[2]).toMatchObject({
      role: "tool",
      toolCallId: "call_w1",
      content: '{"city":"Paris","sky":"sunny","celsius":21}',
    });
    expect(messages[3]).toMatchObject({ role: "assistant", content: "It is sunny in Paris, 21°C." });
    expect(result.newMessages.map((message) => message.role)).toEqual(["assistant", "tool", "assistant"]);
  });

  it("a second run on the same agent sends the whole history; the model sees it once, not twice", async () => {
    model.reply({ text: "First answer." }, { text: "Second answer." });
    const { agent, subscriber } = agentFor("thread-client-2");
    agent.addMessage({ id: "q1", role: "user", content: "First question" });
    await agent.runAgent({}, subscriber);
    agent.addMessage({ id: "q2", role: "user", content: "Second question" });
    await agent.runAgent({}, subscriber);

    expect(model.requests[1]?.body.messages.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual(
      [
        ["system", "You are a helpful assistant."],
        ["user", "First question"],
        ["assistant", "First answer."],
        ["user", "Second question"],
      ],
    );
    expect(agent.messages.map((message) => message.content)).toEqual([
      "First question",
      "First answer.",
      "Second question",
      "Second answer.",
    ]);
  });

  it("a model failure reaches the client as RUN_ERROR with the message, and no message is added", async () => {
    model.reply({ status: 500, message: "the GPUs are on fire" });
    const { agent, events, subscriber } = agentFor("thread-client-3");
    agent.addMessage({ id: "x1", role: "user", content: "Hi" });
    const result = await agent.runAgent({}, subscriber);
    expect(result.newMessages).toEqual([]);
    expect(events.map((event) => event.type)).toEqual(["RUN_STARTED", "RUN_ERROR"]);
    expect(events[1]).toMatchObject({ code: "model_error", message: expect.stringContaining("the GPUs are on fire") });
  });

  it("a tool the front end declares is streamed as a call, the run finishes, and the next run carries its result", async () => {
    model.reply({ toolCalls: [{ id: "call_confirm", name: "confirm_with_user", arguments: { question: "Delete?" } }] });
    const { agent, events, subscriber } = agentFor("thread-client-4");
    const tools = [
      {
        name: "confirm_with_user",
        description: "Ask the user to confirm",
        parameters: { type: "object", properties: { question: { type: "string" } }, required: ["question"] },
      },
    ];
    agent.addMessage({ id: "d1", role: "user", content: "Delete my drafts" });
    await agent.runAgent({ tools }, subscriber);
    expect(events.map((event) => event.type)).toEqual([
      "RUN_STARTED",
      "TOOL_CALL_START",
      "TOOL_CALL_ARGS",
      "TOOL_CALL_ARGS",
      "TOOL_CALL_END",
      "RUN_FINISHED",
    ]);
    const offered = model.requests[0]?.body.tools.map((tool: { function: { name: string } }) => tool.function.name);
    expect(offered).toEqual(["get_weather", "confirm_with_user"]);

    // The app answers the call, then runs again: the model gets the call and the answer.
    agent.addMessage({ id: "d2", role: "tool", toolCallId: "call_confirm", content: "yes" });
    model.reply({ text: "Deleted." });
    await agent.runAgent({ tools }, subscriber);
    expect(model.requests[1]?.body.messages.slice(1)).toEqual([
      { role: "user", content: "Delete my drafts" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "call_confirm",
            type: "function",
            function: { name: "confirm_with_user", arguments: '{"question":"Delete?"}' },
          },
        ],
      },
      { role: "tool", content: "yes", tool_call_id: "call_confirm" },
    ]);
    expect(agent.messages.at(-1)).toMatchObject({ role: "assistant", content: "Deleted." });
  });
});
