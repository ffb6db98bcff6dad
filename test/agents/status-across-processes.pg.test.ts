// An agent's status is the same whichever process answers: runs of one agent on two processes keep it `working`
// until both end, and a killed process's run does not leave it `working` once its lease lapses. (SQLite serves one
// process; the single-process behaviour is in runtime.test.ts.)
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createAgent, seedRequest } from "../helpers/agui.ts";
import {
  createWorkspaceWithRoles,
  startAppOn,
  startTestApp,
  type TestApp,
  type WorkspaceWithRoles,
} from "../helpers/app.ts";
import { type PlatformProcess, startProcess, stopProcess } from "../helpers/cluster.ts";
import { testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { TestModelServer } from "../helpers/model-server.ts";

const postgresOnly = testDialects.filter((dialect) => dialect === "postgres");
const LEASE_MS = "1500";

describe.each(postgresOnly)("agent status across processes (%s)", (dialect) => {
  let model: TestModelServer;
  let a: TestApp;
  let b: TestApp;
  let team: WorkspaceWithRoles;
  let agentId: string;
  const children: PlatformProcess[] = [];
  const runs: AbortController[] = [];

  beforeAll(async () => {
    model = await TestModelServer.start();
    const env = { OPENAI_BASE_URL: model.url, AGENT_MODEL: "openai/test-model", TASK_LEASE_MS: LEASE_MS };
    a = await startTestApp(dialect, { env });
    b = await startAppOn(a.databaseUrl, dialect, { env });
    team = await createWorkspaceWithRoles(a.api);
  });
  afterAll(async () => {
    for (const run of runs) run.abort();
    await Promise.all(children.map(stopProcess));
    await b?.close();
    await a?.close();
    await model?.close();
  });
  beforeEach(async () => {
    model.reset();
    // Every model call streams a little, then holds: a run lasts until its client goes away.
    model.setDefault({ stall: true, text: "Thinking" });
    agentId = await createAgent(a.api, team.owner.token, team.workspaceId, { name: `Agent ${Date.now()}` });
  });

  /** Starts an agent-UI run of the agent on `baseUrl`; it lasts until aborted. */
  async function startRun(baseUrl: string, name: string): Promise<AbortController> {
    const controller = new AbortController();
    runs.push(controller);
    const before = model.requests.length;
    const response = await fetch(`${baseUrl}/agui?agent=${agentId}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "text/event-stream",
        authorization: `Bearer ${team.member.token}`,
      },
      body: JSON.stringify(seedRequest(`thread-${name}`, `run-${name}`, [{ id: name, role: "user", content: "Go" }])),
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    response.body?.pipeTo(new WritableStream()).catch(() => {});
    await eventually(() => model.requests.length > before || undefined, `the model call of ${name}`);
    return controller;
  }

  const statusOn = async (app: TestApp): Promise<string> => {
    const response = await app.api.get(`workspaces/${team.workspaceId}/agents/${agentId}`, {
      token: team.member.token,
    });
    expect(response.status).toBe(200);
    return response.body.status;
  };
  const liveRuns = async () =>
    (await a.db.selectFrom("agent_live_runs").select("id").where("agent_id", "=", agentId).execute()).length;

  it("runs of one agent on two processes: working while either runs, idle once both ended", async () => {
    expect(await statusOn(b)).toBe("idle");
    const onA = await startRun(a.url, "on-a");
    expect(await statusOn(b)).toBe("working");
    const onB = await startRun(b.url, "on-b");
    expect(await statusOn(a)).toBe("working");

    onA.abort();
    await eventually(async () => (await liveRuns()) === 1 || undefined, "the run on A to end");
    // B still runs the agent: both processes say so.
    expect(await statusOn(a)).toBe("working");
    expect(await statusOn(b)).toBe("working");

    onB.abort();
    await eventually(async () => (await statusOn(a)) === "idle" || undefined, "the agent to be idle");
    expect(await statusOn(b)).toBe("idle");
    expect(await liveRuns()).toBe(0);
  });

  it("a process killed during a run: the agent is idle again once the run's lease lapses", async () => {
    const serve = await startProcess("serve", {
      DATABASE_URL: a.databaseUrl,
      OPENAI_BASE_URL: model.url,
      AGENT_MODEL: "openai/test-model",
      TASK_LEASE_MS: LEASE_MS,
    });
    children.push(serve);
    await startRun(serve.url, "doomed");
    expect(await statusOn(a)).toBe("working");
    await stopProcess(serve);
    // Nothing but the lapsed lease can make it idle: the process that ran it is gone.
    await eventually(async () => (await statusOn(b)) === "idle" || undefined, "the agent to be idle", 15_000);
    expect(await liveRuns()).toBe(0);
    const changes = await a.db
      .selectFrom("activity")
      .select("details")
      .where("entity_id", "=", agentId)
      .where("action", "=", "agent.status_changed")
      .orderBy("created_at")
      .execute();
    expect(changes.map((row) => JSON.parse(row.details))).toEqual([
      { from: "idle", to: "working" },
      { from: "working", to: "idle" },
    ]);
  }, 60_000);
});
