// Many processes, one truth: real `agent-platform serve` processes share one queue on PostgreSQL (each task run
// exactly once), a killed process's task is retried once its lease expires, and a run's events reach a subscriber of
// another process live. On SQLite (one process) a restart after kill -9 takes the task up again.
import { afterEach, describe, expect, it } from "vitest";
import type { SqlDialect } from "../../src/db/index.ts";
import { openDatabase } from "../../src/db/index.ts";
import { migrateToLatest } from "../../src/db/migrate.ts";
import { ApiClient, registerUser } from "../helpers/app.ts";
import { type ServerProcess, startBin, stopBins } from "../helpers/bin.ts";
import { createTestDatabase, type TestDatabase, testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { TestModelServer } from "../helpers/model-server.ts";
import { frameOf, parseEventStream, startServerOn } from "./helpers.ts";

const LEASE_MS = "1500";

interface ServeProcess extends ServerProcess {
  api: ApiClient;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await stopBins();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** `agent-platform serve` as a user starts it, on `databaseUrl`, talking to the model double. */
async function serve(
  databaseUrl: string,
  model: TestModelServer,
  env: Record<string, string> = {},
): Promise<ServeProcess> {
  const server = await startBin("serve", [], {
    env: {
      DATABASE_URL: databaseUrl,
      OPENAI_BASE_URL: model.url,
      AGENT_MODEL: "openai/test-model",
      TASK_LEASE_MS: LEASE_MS,
      TASK_RETRY_BASE_MS: "50",
      ...env,
    },
  });
  return { ...server, api: new ApiClient(server.url) };
}

/** A database with its schema in place before any server starts. */
async function migratedDatabase(dialect: SqlDialect): Promise<TestDatabase> {
  const database = await createTestDatabase(dialect);
  const handle = openDatabase(database.url);
  await migrateToLatest(handle.db);
  await handle.close();
  cleanups.push(() => database.drop());
  return database;
}

async function startModel(): Promise<TestModelServer> {
  const model = await TestModelServer.start();
  cleanups.push(() => model.close());
  return model;
}

/** A workspace with `count` agents, through `api`. */
async function workspaceWithAgents(api: ApiClient, count: number) {
  const owner = await registerUser(api, "owner");
  const auth = { token: owner.token };
  const ws = (await api.post("workspaces/", { name: "Shared" }, auth)).body.id as string;
  const agents: string[] = [];
  for (let index = 0; index < count; index++) {
    agents.push((await api.post(`workspaces/${ws}/agents/`, { name: `Agent ${index}` }, auth)).body.id);
  }
  return { ws, auth, agents };
}

/** The task rows, read straight from the shared database. */
async function tasksIn(databaseUrl: string) {
  const handle = openDatabase(databaseUrl);
  try {
    const tasks = await handle.db.selectFrom("tasks").selectAll().execute();
    const runs = await handle.db.selectFrom("runs").selectAll().orderBy("started_at").execute();
    return { tasks, runs };
  } finally {
    await handle.close();
  }
}

const postgresOnly = testDialects.filter((dialect) => dialect === "postgres");

describe.each(postgresOnly)("two server processes on one PostgreSQL (%s)", (dialect) => {
  it("200 tasks assigned through both processes: each runs exactly once, and both processes work", async () => {
    const model = await startModel();
    // Slow enough that runs overlap: more at once than one process may run shows both at work.
    model.setDefault({ text: ["Done", " with", " it", " now."], chunkDelayMs: 150 });
    const database = await migratedDatabase(dialect);
    const [a, b] = await Promise.all([serve(database.url, model), serve(database.url, model)]);
    const { ws, auth, agents } = await workspaceWithAgents(a.api, 20);

    let peak = 0;
    const watch = setInterval(() => {
      peak = Math.max(peak, model.openStreams);
    }, 5);
    try {
      const identifiers: string[] = [];
      for (let batch = 0; batch < 200; batch += 20) {
        const created = await Promise.all(
          Array.from({ length: 20 }, async (_, offset) => {
            const index = batch + offset;
            const api = index % 2 === 0 ? a.api : b.api;
            const issue = await api.post(
              `workspaces/${ws}/issues/`,
              { title: `Task ${index}`, assignee_type: "agent", assignee_id: agents[index % agents.length] },
              auth,
            );
            expect(issue.status).toBe(201);
            return issue.body.identifier as string;
          }),
        );
        identifiers.push(...created);
      }
      const { tasks, runs } = await eventually(
        async () => {
          const state = await tasksIn(database.url);
          return state.tasks.length === 200 && state.tasks.every((task) => task.status === "succeeded") && state;
        },
        "all 200 tasks to succeed",
        90_000,
      );
      expect(tasks.every((task) => Number(task.attempt) === 1)).toBe(true);
      expect(runs).toHaveLength(200);
      expect(new Set(runs.map((run) => run.task_id)).size).toBe(200);
      // Each issue reached the model exactly once.
      const asked = model.requests.map((request) => /issue (\w+-\d+)/.exec(frameOf(request.body))?.[1]);
      expect(asked.sort()).toEqual([...identifiers].sort());
      // One process runs at most 8 at once (AGENT_WORKERS): more than 8 at once means both were working.
      expect(peak).toBeGreaterThan(8);
    } finally {
      clearInterval(watch);
    }
  }, 120_000);

  it("kill -9 of the process running a task: the other takes it up once the lease expires, and it succeeds", async () => {
    const model = await startModel();
    const database = await migratedDatabase(dialect);
    const [a, b] = await Promise.all([serve(database.url, model), serve(database.url, model)]);
    const { ws, auth, agents } = await workspaceWithAgents(a.api, 1);
    model.reply({ stall: true, text: "Working on" });
    const issue = (
      await a.api.post(
        `workspaces/${ws}/issues/`,
        { title: "Survive", assignee_type: "agent", assignee_id: agents[0] },
        auth,
      )
    ).body;
    const running = await eventually(async () => {
      const { tasks } = await tasksIn(database.url);
      return tasks[0]?.status === "running" && model.requests.length === 1 && tasks[0];
    }, "the task to run");
    const pid = Number(running.lease_owner?.split(":")[1]);
    const [victim, survivor] = a.child.pid === pid ? [a, b] : [b, a];
    expect(victim.child.pid).toBe(pid);
    victim.child.kill("SIGKILL");
    await victim.exited;

    const task = await eventually(
      async () => {
        const [row] = (await survivor.api.get(`workspaces/${ws}/issues/${issue.id}/tasks`, auth)).body;
        return row?.status === "succeeded" && row;
      },
      "the survivor to finish the task",
      30_000,
    );
    expect(task.attempt).toBe(2);
    const runs = (await survivor.api.get(`workspaces/${ws}/tasks/${task.id}/runs`, auth)).body;
    expect(runs.map((run: { status: string; error: string | null }) => [run.status, run.error])).toEqual([
      ["failed", "The process running this task stopped before the run ended"],
      ["succeeded", null],
    ]);
    const agent = (await survivor.api.get(`workspaces/${ws}/agents/${agents[0]}`, auth)).body;
    expect(agent.status).toBe("idle");
  }, 60_000);

  it("a run's events reach a subscriber of another process live", async () => {
    const model = await startModel();
    model.setDefault({ text: ["one", " two", " three", " four", " five"], chunkDelayMs: 120 });
    const database = await migratedDatabase(dialect);
    const worker = await startServerOn(database.url, { OPENAI_BASE_URL: model.url, AGENT_MODEL: "openai/test-model" });
    cleanups.push(worker.close);
    const reader = await startServerOn(database.url, { AGENT_WORKERS: "0" });
    cleanups.push(reader.close);
    const { ws, auth, agents } = await workspaceWithAgents(worker.api, 1);
    const issue = (
      await worker.api.post(
        `workspaces/${ws}/issues/`,
        { title: "Watch", assignee_type: "agent", assignee_id: agents[0] },
        auth,
      )
    ).body;
    const task = await eventually(async () => {
      const [row] = (await reader.api.get(`workspaces/${ws}/issues/${issue.id}/tasks`, auth)).body;
      return row?.status === "running" && row;
    }, "the task to run");
    const response = await fetch(`${reader.url}/api/v1/workspaces/${ws}/runs/${task.run_id}/events`, {
      headers: { authorization: `Bearer ${auth.token}` },
    });
    const body = response.body!.getReader();
    let text = "";
    let pieces = 0;
    for (;;) {
      const { value, done } = await body.read();
      if (done) break;
      pieces++;
      text += new TextDecoder().decode(value);
    }
    expect(pieces).toBeGreaterThan(2);
    const frames = parseEventStream(text);
    expect(frames.at(-1)?.event).toBe("RUN_FINISHED");
    expect(frames.map((frame) => frame.id)).toEqual(frames.map((_, index) => index + 1));
    const deltas = frames.filter((frame) => frame.event === "TEXT_MESSAGE_CONTENT").map((frame) => frame.data.delta);
    expect(deltas.join("")).toBe("one two three four five");
  }, 60_000);
});

describe.each(testDialects)("kill -9 of the only server, then a restart (%s)", (dialect) => {
  it("the restarted server takes the task up once its lease expires, and it succeeds", async () => {
    const model = await startModel();
    const database = await migratedDatabase(dialect);
    const first = await serve(database.url, model);
    const { ws, auth, agents } = await workspaceWithAgents(first.api, 1);
    model.reply({ stall: true });
    const issue = (
      await first.api.post(
        `workspaces/${ws}/issues/`,
        { title: "Restart", assignee_type: "agent", assignee_id: agents[0] },
        auth,
      )
    ).body;
    await eventually(() => model.requests.length === 1, "the model request");
    first.child.kill("SIGKILL");
    await first.exited;

    const second = await serve(database.url, model);
    const task = await eventually(
      async () => {
        const [row] = (await second.api.get(`workspaces/${ws}/issues/${issue.id}/tasks`, auth)).body;
        return row?.status === "succeeded" && row;
      },
      "the restarted server to finish the task",
      30_000,
    );
    expect(task.attempt).toBe(2);
    expect(model.requests).toHaveLength(2);
  }, 60_000);
});

describe.each(testDialects)("a graceful stop (%s)", (dialect) => {
  it("SIGTERM mid-run ends open streams, hands the task back uncounted, and the next server finishes it", async () => {
    const model = await startModel();
    const database = await migratedDatabase(dialect);
    const first = await serve(database.url, model);
    const { ws, auth, agents } = await workspaceWithAgents(first.api, 1);
    model.reply({ stall: true, text: "Half an answer" });
    const issue = (
      await first.api.post(
        `workspaces/${ws}/issues/`,
        { title: "Stop", assignee_type: "agent", assignee_id: agents[0] },
        auth,
      )
    ).body;
    const running = await eventually(async () => {
      const [row] = (await first.api.get(`workspaces/${ws}/issues/${issue.id}/tasks`, auth)).body;
      return row?.status === "running" && model.requests.length === 1 && row;
    }, "the task to run");
    const events = `workspaces/${ws}/runs/${running.run_id}/events`;
    const response = await fetch(`${first.url}/api/v1/${events}`, {
      headers: { authorization: `Bearer ${auth.token}` },
    });
    expect(response.status).toBe(200);
    const streamed = response.text();

    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);
    const seen = parseEventStream(await streamed);
    expect(seen.at(-1)?.event).not.toBe("RUN_FINISHED");
    expect(model.requests[0]?.abortedByClient).toBe(true);
    const { tasks, runs } = await tasksIn(database.url);
    expect(tasks[0]).toMatchObject({ status: "queued", attempt: 0, lease_owner: null });
    expect(runs.map((run) => [run.status, run.error])).toEqual([
      ["failed", "The server shut down during the run; the task was queued again"],
    ]);

    const second = await serve(database.url, model);
    const done = await eventually(async () => {
      const [row] = (await second.api.get(`workspaces/${ws}/issues/${issue.id}/tasks`, auth)).body;
      return row?.status === "succeeded" && row;
    }, "the next server to finish the task");
    expect(done.attempt).toBe(1);
    // A client of the first server resumes where its stream was cut, up to the run's end.
    const read = (lastEventId: number) =>
      fetch(`${second.url}/api/v1/${events}`, {
        headers: { authorization: `Bearer ${auth.token}`, "last-event-id": String(lastEventId) },
      }).then(async (response) => parseEventStream(await response.text()));
    const all = await read(0);
    expect(await read(seen.at(-1)?.id ?? 0)).toEqual(all.slice(seen.length));
    expect(all.slice(0, seen.length)).toEqual(seen);
    expect(all.at(-1)?.data).toEqual({
      type: "RUN_ERROR",
      message: "The server shut down during the run; the task was queued again",
      code: "interrupted",
    });
  }, 60_000);
});
