// anthropic/<model> agents through @anthropic-ai/sdk, against a local server speaking the Messages streaming protocol.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postAgui, seedRequest } from "../helpers/agui.ts";
import { TestAnthropicServer } from "../helpers/anthropic-server.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";
import { registryWith } from "../helpers/registry.ts";

describe.each(testDialects)("anthropic models (%s)", (dialect) => {
  let claude: TestAnthropicServer;
  let t: TestApp;
  beforeAll(async () => {
    claude = await TestAnthropicServer.start();
    const registry = registryWith({
      name: "add",
      description: "Adds two numbers",
      inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
      run: async (args) => ({ sum: Number(args.a) + Number(args.b) }),
    });
    t = await startTestApp(dialect, {
      registry,
      env: {
        AGENT_MODEL: "anthropic/claude-test",
        AGENT_INSTRUCTIONS: "You add numbers.",
        ANTHROPIC_API_KEY: "sk-ant-test",
        ANTHROPIC_BASE_URL: claude.url,
      },
    });
  });
  afterAll(async () => {
    await t.close();
    await claude.close();
  });

  it("streams text and runs a tool call, sending the system prompt and the tool result the Anthropic way", async () => {
    claude.reply(
      { text: ["Let me", " add."], toolUses: [{ id: "toolu_1", name: "add", input: { a: 2, b: 3 } }] },
      { text: ["2 + 3", " = 5."] },
    );
    const response = await postAgui(
      t.url,
      seedRequest("claude-1", "r1", [{ id: "c1", role: "user", content: "2+3?" }]),
    );
    expect(response.types).toEqual([
      "run_started",
      "text_message_start",
      "text_message_content",
      "text_message_content",
      "text_message_end",
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
    expect(response.frames.find((f) => f.data.type === "tool_call_result")?.data).toMatchObject({
      toolCallId: "toolu_1",
      content: '{"sum":5}',
    });

    const [first, second] = claude.requests;
    // The key travels the way this SDK version sends it (x-api-key, or a bearer token in the newest versions).
    const sentKey = first?.headers["x-api-key"] ?? first?.headers.authorization?.replace(/^Bearer /, "");
    expect(sentKey).toBe("sk-ant-test");
    expect(first?.body).toMatchObject({
      model: "claude-test",
      system: "You add numbers.",
      stream: true,
      messages: [{ role: "user", content: [{ type: "text", text: "2+3?" }] }],
      tools: [{ name: "add", description: "Adds two numbers", input_schema: { type: "object" } }],
    });
    expect(second?.body.messages.slice(1)).toEqual([
      {
        role: "assistant",
        content: [
          { type: "text", text: "Let me add." },
          { type: "tool_use", id: "toolu_1", name: "add", input: { a: 2, b: 3 } },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: '{"sum":5}' }] },
    ]);
  });

  it("an API error becomes run_error with the provider's message", async () => {
    claude.reply({ status: 400, message: "prompt is too long" });
    const response = await postAgui(t.url, seedRequest("claude-2", "r2", [{ id: "c2", role: "user", content: "x" }]));
    expect(response.types).toEqual(["run_started", "run_error"]);
    expect(response.frames[1]?.data).toMatchObject({
      code: "model_error",
      message: expect.stringContaining("prompt is too long"),
    });
  });
});
