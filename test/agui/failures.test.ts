import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseSse, postAgui, seedRequest } from "../helpers/agui.ts";
import { registerUser, startTestApp, type TestApp } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";
import { TestModelServer } from "../helpers/model-server.ts";

const ask = (threadId: string, content = "Hi") =>
  seedRequest(threadId, `run-${threadId}`, [{ id: `m-${threadId}`, role: "user", content }]);

function expectEndsWithRunError(types: string[]) {
  expect(types[0]).toBe("run_started");
  expect(types.at(-1)).toBe("run_error");
  expect(types.filter((type) => type === "run_error")).toHaveLength(1);
  expect(types).not.toContain("run_finished");
}

describe.each(testDialects)("POST /agui when things go wrong (%s)", (dialect) => {
  let model: TestModelServer;
  let t: TestApp;
  beforeAll(async () => {
    model = await TestModelServer.start();
    t = await startTestApp(dialect, {
      env: { OPENAI_BASE_URL: model.url, AGENT_MODEL: "openai/test-model", AGENT_MODEL_TIMEOUT_MS: "300" },
    });
  });
  afterAll(async () => {
    await t.close();
    await model.close();
  });
  beforeEach(() => model.reset());

  it("a 5xx from the model ends the run with run_error naming the status, nothing after it, without a retry", async () => {
    model.reply({ status: 503, message: "overloaded" });
    const response = await postAgui(t.url, ask("fail-5xx"));
    expect(response.status).toBe(200);
    expect(response.types).toEqual(["run_started", "run_error"]);
    expect(response.frames[1]?.data).toEqual({
      type: "run_error",
      code: "model_error",
      message: "The model openai/test-model failed (503): 503 overloaded",
    });
    expect(model.requests).toHaveLength(1);
  });

  it("a malformed chunk mid-stream ends the run with run_error after what was already streamed", async () => {
    model.reply({ malformed: true });
    const response = await postAgui(t.url, ask("fail-malformed"));
    expectEndsWithRunError(response.types);
    expect(response.types).toEqual(["run_started", "text_message_start", "text_message_content", "run_error"]);
    expect(response.frames.at(-1)?.data).toMatchObject({
      code: "model_error",
      message: expect.stringMatching(/malformed/),
    });
  });

  it("a model that stops sending times out with run_error, and its connection is closed", async () => {
    model.reply({ stall: true, text: "I was saying" });
    const response = await postAgui(t.url, ask("fail-stall"));
    // The idle timer fired: its message says so.
    expectEndsWithRunError(response.types);
    expect(response.frames.at(-1)?.data).toEqual({
      type: "run_error",
      code: "model_timeout",
      message: "The model openai/test-model sent nothing for 300 ms",
    });
    await model.requests[0]?.done;
    expect(model.requests[0]?.abortedByClient).toBe(true);
    expect(model.openStreams).toBe(0);
  });

  it("a client that disconnects mid-stream aborts the model request; the thread stays usable", async () => {
    const words = Array.from({ length: 200 }, (_, index) => ` w${index}`);
    model.reply({ text: words, chunkDelayMs: 10 });
    const controller = new AbortController();
    const response = await fetch(`${t.url}/agui`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(ask("disconnect", "Tell me a long story")),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    let received = "";
    while (!received.includes("text_message_content")) {
      const { value } = await reader.read();
      received += new TextDecoder().decode(value);
    }
    controller.abort();

    const upstream = model.requests[0]!;
    await Promise.race([
      upstream.done,
      new Promise((_, reject) => setTimeout(() => reject(new Error("not aborted")), 2000)),
    ]);
    expect(upstream.abortedByClient).toBe(true);
    expect(model.openStreams).toBe(0);

    // Nothing half-done was kept: the next run sees the question, then the new message, no partial answer.
    model.reply({ text: "Short story." });
    const again = await postAgui(
      t.url,
      seedRequest("disconnect", "run-2", [{ id: "m-disconnect-2", role: "user", content: "Shorter please" }]),
    );
    expect(again.types.at(-1)).toBe("run_finished");
    expect(model.requests[1]?.body.messages.map((m: { role: string }) => m.role)).toEqual(["system", "user", "user"]);
  });

  it("bad bodies are a 422 JSON answer before any stream", async () => {
    const cases: [unknown, string | undefined][] = [
      [{ runId: "r", state: { messages: [] } }, "threadId"],
      [{ threadId: "t", runId: "r" }, "state"],
      [{ threadId: "t", runId: "r", state: { messages: "hello" } }, "state"],
      [{ threadId: "t", runId: "r", messages: [{ id: "1", content: "no role" }] }, "messages"],
      [{ threadId: "t", runId: "r", messages: [{ id: "1", role: "tool", content: "orphan" }] }, "messages"],
      [{ threadId: 42, runId: "r", state: { messages: [] } }, "threadId"],
      [[1, 2, 3], undefined],
    ];
    for (const [body, field] of cases) {
      const response = await postAgui(t.url, body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.headers.get("content-type")).toMatch(/^application\/json/);
      expect(response.json.detail[0].loc[0]).toBe("body");
      if (field) expect(response.json.detail[0].loc).toContain(field);
    }
    const notJson = await postAgui(t.url, undefined, { raw: "{not json" });
    expect(notJson).toMatchObject({ status: 422, json: { detail: [{ type: "json_invalid" }] } });
    expect(model.requests).toHaveLength(0);
  });

  it("an unknown agent is a 404 JSON answer (and asking for one needs credentials)", async () => {
    const anonymous = await postAgui(t.url, ask("agent-anon"), { path: "/agui?agent=nope" });
    expect(anonymous).toMatchObject({ status: 401, json: { detail: "Missing Authorization header" } });
    const { token } = await registerUser(t.api, "agui");
    const byQuery = await postAgui(t.url, ask("agent-q"), {
      path: "/agui?agent=no-such-agent",
      headers: { authorization: `Bearer ${token}` },
    });
    expect(byQuery).toMatchObject({ status: 404, json: { detail: "Agent not found" } });
    const byProps = await postAgui(
      t.url,
      { threadId: "t", runId: "r", messages: [], forwardedProps: { agentId: "no-such-agent" } },
      { headers: { authorization: `Bearer ${token}` } },
    );
    expect(byProps).toMatchObject({ status: 404, json: { detail: "Agent not found" } });
    const badToken = await postAgui(t.url, ask("agent-bad"), { headers: { authorization: "Bearer not-a-jwt" } });
    expect(badToken.status).toBe(401);
  });
});

describe.each(testDialects)("POST /agui without a model key or outside dev (%s)", (dialect) => {
  it("no key configured: run_error says which variable to set", async () => {
    const t = await startTestApp(dialect, { env: {} });
    try {
      const openai = await postAgui(t.url, ask("nokey-openai"));
      expect(openai.types).toEqual(["run_started", "run_error"]);
      expect(openai.frames[1]?.data).toEqual({
        type: "run_error",
        code: "model_not_configured",
        message:
          "No API key for openai/gpt-4o-mini: set OPENAI_API_KEY (or OPENAI_BASE_URL for an OpenAI-compatible server)",
      });
    } finally {
      await t.close();
    }
    const claude = await startTestApp(dialect, { env: { AGENT_MODEL: "anthropic/claude-sonnet-4-5" } });
    try {
      const response = await postAgui(claude.url, ask("nokey-anthropic"));
      expect(response.frames.at(-1)?.data).toMatchObject({
        type: "run_error",
        code: "model_not_configured",
        message: expect.stringContaining("set ANTHROPIC_API_KEY"),
      });
    } finally {
      await claude.close();
    }
  });

  it("outside PLATFORM_ENV=dev the default agent needs a credential", async () => {
    const model = await TestModelServer.start();
    const t = await startTestApp(dialect, {
      env: {
        PLATFORM_ENV: "production",
        PLATFORM_JWT_SECRET: "a-production-secret-that-is-long-enough-0123456789",
        OPENAI_BASE_URL: model.url,
      },
    });
    try {
      const anonymous = await postAgui(t.url, ask("prod-anon"));
      expect(anonymous).toMatchObject({ status: 401, json: { detail: "Missing Authorization header" } });
      const { token } = await registerUser(t.api, "prod");
      const allowed = await postAgui(t.url, ask("prod-user"), { headers: { authorization: `Bearer ${token}` } });
      expect(allowed.types).toEqual(parseSse(allowed.text).map((frame) => frame.data.type));
      expect(allowed.types.at(-1)).toBe("run_finished");
    } finally {
      await t.close();
      await model.close();
    }
  });
});
