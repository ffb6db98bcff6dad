// Event triggers read from the outbox: filters, the loop guard (an autopilot whose issues its own agent updates would
// otherwise fire forever), and self-pause after the tasks of its last five issues failed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/index.ts";
import { createIssue as createIssueDirectly, updateIssue } from "../../src/platform/issues/service.ts";
import { createWorkspaceWithRoles, startAppOn, type TestApp } from "../helpers/app.ts";
import { createTestDatabase, type TestDatabase, testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { TestModelServer } from "../helpers/model-server.ts";
import { createIssue, createProject, insertAgent } from "../helpers/platform.ts";
import { type AutopilotFixture, autopilotBody, createAutopilot, startAutopilotFixture } from "./helpers.ts";

/** The real sync point: the autopilot's position in the outbox has reached the workspace's last event. */
async function caughtUp(t: TestApp, ws: string, autopilotId: string): Promise<void> {
  await eventually(async () => {
    const head = await t.db
      .selectFrom("event_counters")
      .select("last_seq")
      .where("workspace_id", "=", ws)
      .executeTakeFirst();
    const row = await t.db.selectFrom("autopilots").select("last_seq").where("id", "=", autopilotId).executeTakeFirst();
    return Number(row?.last_seq) === Number(head?.last_seq);
  }, "the autopilot to have read every event");
}

const runsOf = (f: AutopilotFixture, autopilotId: string) =>
  f.t.api
    .get(`workspaces/${f.ws}/autopilots/${autopilotId}/runs`, { token: f.member.token })
    .then((r) => r.body as any[]);

describe.each(testDialects)("event triggers (%s)", (dialect) => {
  let f: AutopilotFixture;

  beforeAll(async () => {
    f = await startAutopilotFixture(dialect);
  });
  afterAll(() => f.t.close());

  it("an issue moved to done in one project fires it, with {{event.…}} in the template; others do not", async () => {
    const project = await createProject(f.t.api, f.ws, f.owner.token);
    const autopilot = await createAutopilot(
      f.t.api,
      f.ws,
      f.member.token,
      autopilotBody(f.agentId, {
        overlap: "allow",
        issue: { title: "Release notes for {{event.data.identifier}}" },
        triggers: [{ kind: "event", types: ["issue.updated"], filter: { to_status: "done", project_id: project.id } }],
      }),
    );
    const inProject = await createIssue(f.t.api, f.ws, f.member.token, { project_id: project.id });
    const elsewhere = await createIssue(f.t.api, f.ws, f.member.token);
    const move = (id: string, status: string) =>
      f.t.api.patch(`workspaces/${f.ws}/issues/${id}`, { status }, { token: f.member.token });
    await move(inProject.id, "in_progress");
    await move(elsewhere.id, "done");
    await move(inProject.id, "done");
    await caughtUp(f.t, f.ws, autopilot.id);
    const runs = await runsOf(f, autopilot.id);
    expect(runs).toMatchObject([{ trigger_kind: "event", status: "issue_created" }]);
    const issue = (await f.t.api.get(`workspaces/${f.ws}/issues/${runs[0].issue_id}`, { token: f.member.token })).body;
    expect(issue.title).toBe(`Release notes for ${inProject.identifier}`);
  });

  it("the loop guard: never on its own changes, nor on its agent's work on its issues; others' changes fire", async () => {
    const autopilot = await createAutopilot(
      f.t.api,
      f.ws,
      f.member.token,
      autopilotBody(f.agentId, {
        overlap: "allow",
        triggers: [{ kind: "event", types: ["issue.created", "issue.updated"] }],
      }),
    );
    const someone = await createIssue(f.t.api, f.ws, f.member.token);
    await caughtUp(f.t, f.ws, autopilot.id);
    // The member's issue fired it once; its own issue.created (actor: the autopilot) did not fire it again.
    const [first] = await runsOf(f, autopilot.id);
    expect(await runsOf(f, autopilot.id)).toHaveLength(1);
    expect(first).toMatchObject({ status: "issue_created" });
    expect(first.issue_id).not.toBe(someone.id);

    // Its agent working its issue: no fire (without the guard each update would make an issue, and so on).
    for (const status of ["in_progress", "in_review"] as const) {
      await updateIssue(f.t.db, f.ws, first.issue_id, { status }, { type: "agent", id: f.agentId });
    }
    await caughtUp(f.t, f.ws, autopilot.id);
    expect(await runsOf(f, autopilot.id)).toHaveLength(1);

    // A person changing that issue is news: it fires.
    await f.t.api.patch(`workspaces/${f.ws}/issues/${first.issue_id}`, { priority: "high" }, { token: f.owner.token });
    await caughtUp(f.t, f.ws, autopilot.id);
    expect(await runsOf(f, autopilot.id)).toHaveLength(2);
    await f.t.api.patch(`workspaces/${f.ws}/autopilots/${autopilot.id}`, { enabled: false }, { token: f.member.token });
  });

  it("a comment fires a comment.created trigger once", async () => {
    const autopilot = await createAutopilot(
      f.t.api,
      f.ws,
      f.member.token,
      autopilotBody(f.agentId, { overlap: "allow", triggers: [{ kind: "event", types: ["comment.created"] }] }),
    );
    await caughtUp(f.t, f.ws, autopilot.id);
    const issue = await createIssue(f.t.api, f.ws, f.member.token);
    await f.t.api.post(
      `workspaces/${f.ws}/issues/${issue.id}/comments`,
      { content: "hello" },
      { token: f.member.token },
    );
    await caughtUp(f.t, f.ws, autopilot.id);
    expect(await runsOf(f, autopilot.id)).toMatchObject([{ trigger_kind: "event", status: "issue_created" }]);
    await f.t.api.patch(`workspaces/${f.ws}/autopilots/${autopilot.id}`, { enabled: false }, { token: f.member.token });
  });
});

describe.each(testDialects)("self-pause (%s)", (dialect) => {
  let f: AutopilotFixture;
  let model: TestModelServer;

  beforeAll(async () => {
    model = await TestModelServer.start();
    model.setDefault({ status: 400, message: "no" });
    f = await startAutopilotFixture(dialect, {
      env: {
        AGENT_WORKERS: "4",
        TASK_MAX_ATTEMPTS: "1",
        OPENAI_BASE_URL: model.url,
        OPENAI_API_KEY: "test-key",
        AGENT_MODEL: "openai/test-model",
      },
    });
  });
  afterAll(async () => {
    await f.t.close();
    await model.close();
  });

  it("after the tasks of its last 5 issues failed it disables itself with a reason; enabling clears it", async () => {
    const autopilot = await createAutopilot(
      f.t.api,
      f.ws,
      f.member.token,
      autopilotBody(f.agentId, { overlap: "allow" }),
    );
    const path = `workspaces/${f.ws}/autopilots/${autopilot.id}`;
    for (let i = 0; i < 5; i++) {
      expect((await f.t.api.post(`${path}/fire`, undefined, { token: f.member.token })).body.status).toBe(
        "issue_created",
      );
    }
    const paused = await eventually(async () => {
      const read = (await f.t.api.get(path, { token: f.member.token })).body;
      return read.paused_reason !== null && read;
    }, "the autopilot to pause itself");
    expect(paused).toMatchObject({ enabled: false, next_fire_at: null, paused_reason: expect.stringContaining("5") });
    const events = await f.t.db
      .selectFrom("events")
      .select("type")
      .where("entity_id", "=", autopilot.id)
      .where("type", "=", "autopilot.paused")
      .execute();
    expect(events).toHaveLength(1);
    const enabled = await f.t.api.patch(path, { enabled: true }, { token: f.member.token });
    expect(enabled.body).toMatchObject({ enabled: true, paused_reason: null });
  });
});

describe.each(testDialects)("event triggers across a restart (%s)", (dialect) => {
  let database: TestDatabase;
  let app: TestApp | undefined;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
  });
  afterAll(async () => {
    await app?.close();
    await database.drop();
  });

  it("an event committed while no server ran fires once a server is back (the position is in the database)", async () => {
    const env = { AGENT_WORKERS: "0" };
    app = await startAppOn(database.url, dialect, { env });
    const { workspaceId: ws, member } = await createWorkspaceWithRoles(app.api);
    const agentId = await insertAgent(app, ws);
    const autopilot = await createAutopilot(
      app.api,
      ws,
      member.token,
      autopilotBody(agentId, { overlap: "allow", triggers: [{ kind: "event", types: ["issue.created"] }] }),
    );
    await caughtUp(app, ws, autopilot.id);
    await app.close();
    app = undefined;

    // No server runs: a change is written straight through the platform's service (another tool, a migration…).
    const offline = openDatabase(database.url);
    const issue = await createIssueDirectly(
      offline.db,
      ws,
      { title: "Written while down", status: "todo", priority: "none" },
      {
        type: "member",
        id: member.user.id,
      },
    );
    await offline.close();

    app = await startAppOn(database.url, dialect, { env });
    const back = app;
    const runs = await eventually(async () => {
      const listed = (await back.api.get(`workspaces/${ws}/autopilots/${autopilot.id}/runs`, { token: member.token }))
        .body;
      return listed.length > 0 && listed;
    }, "the missed event to fire");
    expect(runs).toMatchObject([{ trigger_kind: "event", status: "issue_created" }]);
    const claim = await back.db
      .selectFrom("autopilot_runs")
      .select("claim_key")
      .where("id", "=", runs[0].id)
      .executeTakeFirst();
    const event = await back.db
      .selectFrom("events")
      .select("id")
      .where("type", "=", "issue.created")
      .where("entity_id", "=", issue.id)
      .executeTakeFirstOrThrow();
    expect(claim?.claim_key).toBe(`event:${event.id}`);
  });
});
