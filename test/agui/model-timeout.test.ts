// A model that never answers (no status line, no headers) fails the run after AGENT_MODEL_TIMEOUT_MS once: the SDKs'
// own retries are off, so the wait is not doubled (a task's failed run is retried by the work queue instead).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postAgui, seedRequest } from "../helpers/agui.ts";
import { TestAnthropicServer } from "../helpers/anthropic-server.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";
import { TestModelServer } from "../helpers/model-server.ts";

const TIMEOUT_MS = 1_000;

describe.each(testDialects)("a model that never answers (%s)", (dialect) => {
  let openai: TestModelServer;
  let claude: TestAnthropicServer;
  let viaOpenai: TestApp;
  let viaAnthropic: TestApp;
  beforeAll(async () => {
    openai = await TestModelServer.start();
    claude = await TestAnthropicServer.start();
    const timeout = { AGENT_MODEL_TIMEOUT_MS: String(TIMEOUT_MS) };
    viaOpenai = await startTestApp(dialect, {
      env: { ...timeout, OPENAI_BASE_URL: openai.url, AGENT_MODEL: "openai/test-model" },
    });
    viaAnthropic = await startTestApp(dialect, {
      env: {
        ...timeout,
        ANTHROPIC_BASE_URL: claude.url,
        ANTHROPIC_API_KEY: "sk-ant-test",
        AGENT_MODEL: "anthropic/claude-test",
      },
    });
  });
  afterAll(async () => {
    await viaOpenai.close();
    await viaAnthropic.close();
    await openai.close();
    await claude.close();
  });

  it("openai/…: the run fails with model_timeout after one timeout, asking the model once", async () => {
    openai.setDefault({ hang: true });
    const response = await postAgui(
      viaOpenai.url,
      seedRequest("hang-openai", "r1", [{ id: "m1", role: "user", content: "Hi" }]),
    );
    expect(response.types).toEqual(["run_started", "run_error"]);
    // The timeout fired (model_timeout), once: a retry would have asked the model a second time.
    expect(response.frames[1]?.data).toMatchObject({ code: "model_timeout" });
    expect(openai.requests).toHaveLength(1);
  });

  it("anthropic/…: the run fails with model_timeout after one timeout, asking the model once", async () => {
    claude.reply({ hang: true }, { hang: true });
    const response = await postAgui(
      viaAnthropic.url,
      seedRequest("hang-claude", "r1", [{ id: "m1", role: "user", content: "Hi" }]),
    );
    expect(response.types).toEqual(["run_started", "run_error"]);
    expect(response.frames[1]?.data).toMatchObject({ code: "model_timeout" });
    expect(claude.requests).toHaveLength(1);
  });
});
