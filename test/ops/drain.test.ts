// A graceful stop of `agent-platform serve` (SIGTERM): /ready turns 503 at once while requests are still served for
// DRAIN_DELAY_MS, the worker claims nothing more, an agent-UI run in flight finishes, event streams end so their
// clients reconnect elsewhere, the running task goes back to the queue, and the process exits 0 within its bound.
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/index.ts";
import { migrateToLatest } from "../../src/db/migrate.ts";
import { SseClient } from "../events/helpers.ts";
import { parseSse, seedRequest } from "../helpers/agui.ts";
import { registerUser } from "../helpers/app.ts";
import { type PlatformProcess, startProcess, stopProcess } from "../helpers/cluster.ts";
import { createTestDatabase, testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { TestModelServer } from "../helpers/model-server.ts";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(dialect: (typeof testDialects)[number], env: Record<string, string>) {
  const model = await TestModelServer.start();
  cleanups.push(() => model.close());
  const database = await createTestDatabase(dialect);
  cleanups.push(() => database.drop());
  const handle = openDatabase(database.url);
  await migrateToLatest(handle.db);
  await handle.close();
  const server = await startProcess("serve", {
    DATABASE_URL: database.url,
    OPENAI_BASE_URL: model.url,
    AGENT_MODEL: "openai/test-model",
    TASK_RETRY_BASE_MS: "50",
    ...env,
  });
  cleanups.push(() => stopProcess(server));
  return { model, database, server };
}

/** Starts a seed-dialect agent-UI run and collects its whole body. */
function aguiRun(server: PlatformProcess, token: string) {
  return fetch(`${server.url}/agui`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify(seedRequest("thread-drain", "run-drain", [{ id: "m1", role: "user", content: "Go slowly" }])),
  }).then(async (response) => parseSse(await response.text()).map((frame) => frame.data?.type));
}

describe.each(testDialects)("SIGTERM drains the process (%s)", (dialect) => {
  it("/ready 503 during the drain delay, no new claims, the run in flight finishes, streams end, exit 0", async () => {
    const { model, database, server } = await setUp(dialect, { DRAIN_DELAY_MS: "1500", SHUTDOWN_TIMEOUT_MS: "5000" });
    const owner = await registerUser(server.api, "owner");
    const auth = { token: owner.token };
    const ws = (await server.api.post("workspaces/", { name: "Drain" }, auth)).body.id as string;
    const agent = (await server.api.post(`workspaces/${ws}/agents/`, { name: "Busy" }, auth)).body.id as string;
    const later = (await server.api.post(`workspaces/${ws}/agents/`, { name: "Later" }, auth)).body.id as string;
    model.routeBy((body) => {
      const text = JSON.stringify(body.messages);
      if (text.includes("Go slowly")) return { text: ["one ", "two ", "three ", "four ", "five"], chunkDelayMs: 400 };
      return { stall: true, text: "Working" };
    });
    const assigned = await server.api.post(
      `workspaces/${ws}/issues/`,
      { title: "Long task", assignee_type: "agent", assignee_id: agent },
      auth,
    );
    await eventually(
      async () => (await server.api.get(`workspaces/${ws}/tasks`, auth)).body[0]?.status === "running",
      "the task to run",
    );
    const stream = await SseClient.open(`${server.url}/api/v1/workspaces/${ws}/events/stream`, {
      authorization: `Bearer ${owner.token}`,
    });
    expect(stream.status).toBe(200);
    const run = aguiRun(server, owner.token);
    await eventually(() => model.requests.length === 2, "the agent-UI run's model request");

    server.child.kill("SIGTERM");
    const ready = await eventually(async () => {
      const response = await fetch(`${server.url}/ready`);
      return response.status === 503 && response.json();
    }, "/ready to answer 503");
    expect(ready).toEqual({ status: "draining", detail: "The server is shutting down" });
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    // Work assigned now waits for another process: this one claims nothing more.
    const waiting = await server.api.post(
      `workspaces/${ws}/issues/`,
      { title: "After the signal", assignee_type: "agent", assignee_id: later },
      auth,
    );
    expect(waiting.status).toBe(201);

    expect(await run).toEqual([
      "run_started",
      "text_message_start",
      "text_message_content",
      "text_message_content",
      "text_message_content",
      "text_message_content",
      "text_message_content",
      "text_message_end",
      "run_finished",
    ]);
    await stream.waitForEnd(10_000);
    expect(stream.ended).toBe(true);
    expect(await server.exited).toBe(0);
    // Everything wound up by itself: the bound (which cuts what is left) was not needed.
    expect(server.output().stdout + server.output().stderr).not.toContain("shutdown bound reached");
    // The stream saw the issue created during the drain before it ended.
    expect(stream.data.map((event) => event.type)).toContain("issue.created");

    const handle = openDatabase(database.url);
    try {
      const tasks = await handle.db.selectFrom("tasks").select(["issue_id", "status", "attempt"]).execute();
      const byIssue = new Map(tasks.map((task) => [task.issue_id, task]));
      expect(byIssue.get(assigned.body.id)).toMatchObject({ status: "queued", attempt: 0 });
      expect(byIssue.get(waiting.body.id)).toMatchObject({ status: "queued", attempt: 0 });
    } finally {
      await handle.close();
    }
    // The model was asked for the first task and the agent-UI run only.
    expect(model.requests).toHaveLength(2);
  }, 240_000);

  it("a run still going at SHUTDOWN_TIMEOUT_MS is cut and the process exits 0 all the same", async () => {
    const { model, server } = await setUp(dialect, { SHUTDOWN_TIMEOUT_MS: "1000" });
    const owner = await registerUser(server.api, "owner");
    model.setDefault({ stall: true, text: "Never" });
    const run = aguiRun(server, owner.token).catch(() => ["cut"]);
    await eventually(() => model.requests.length === 1, "the model request");
    server.child.kill("SIGTERM");
    // The run would never end by itself: the bound's timer fired, cut it, and the process exited.
    expect(await server.exited).toBe(0);
    expect(server.output().stdout).toContain("shutdown bound reached");
    const seen = await run;
    expect(seen).not.toContain("run_finished");
    await eventually(() => model.requests[0]?.abortedByClient, "the model request to be aborted");
  }, 180_000);
});
