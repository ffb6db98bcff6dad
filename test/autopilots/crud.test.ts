// Autopilots through the API: what a member may create and change, what is refused (422 naming the field, 404 for
// another workspace's agent or project), "fire now" creating an issue in the creator's name and assigned to the
// agent, the runs kept and the events written.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDialects } from "../helpers/databases.ts";
import { activityOf, createLabel, createProject, insertAgent, unknownId } from "../helpers/platform.ts";
import { type AutopilotFixture, autopilotBody, createAutopilot, startAutopilotFixture } from "./helpers.ts";

describe.each(testDialects)("autopilots API (%s)", (dialect) => {
  let f: AutopilotFixture;
  const path = (suffix = "") => `workspaces/${f.ws}/autopilots${suffix}`;

  beforeAll(async () => {
    f = await startAutopilotFixture(dialect);
  });
  afterAll(() => f.t.close());

  it("a member creates one; it reads back with defaults, next_fire_at and the creator", async () => {
    const created = await createAutopilot(f.t.api, f.ws, f.member.token, autopilotBody(f.agentId));
    expect(created).toMatchObject({
      workspace_id: f.ws,
      name: "Weekly triage",
      enabled: true,
      agent_id: f.agentId,
      project_id: null,
      issue: { title: "Triage {{date}}", priority: "none", labels: [] },
      triggers: [{ kind: "schedule", cron: "0 9 * * 1", timezone: "Europe/Berlin" }],
      overlap: "skip",
      paused_reason: null,
      created_by: f.member.user.id,
      last_fired_at: null,
    });
    // Mondays 09:00 in Berlin is 07:00 or 08:00 UTC.
    expect(created.next_fire_at).toMatch(/T0[78]:00:00\.000000$/);
    expect(new Date(`${created.next_fire_at}Z`).getUTCDay()).toBe(1);
    const read = await f.t.api.get(path(`/${created.id}`), { token: f.admin.token });
    expect(read.body).toEqual(created);
    const listed = await f.t.api.get(path(), { token: f.member.token });
    expect(listed.body.map((a: { id: string }) => a.id)).toContain(created.id);
    const logged = (await activityOf(f.t, f.ws)).filter((row) => row.action === "autopilot.created");
    expect(logged.at(-1)).toMatchObject({ entity_id: created.id, actor_type: "member", actor_id: f.member.user.id });
  });

  it("422 names the field: a bad cron, an unknown time zone, no triggers, too many", async () => {
    const cases: [Record<string, unknown>, (string | number)[]][] = [
      [{ triggers: [{ kind: "schedule", cron: "61 * * * *" }] }, ["body", "triggers", "0", "cron"]],
      [{ triggers: [{ kind: "schedule", cron: "* * *" }] }, ["body", "triggers", "0", "cron"]],
      [
        { triggers: [{ kind: "schedule", cron: "0 9 * * *", timezone: "Mars/Olympus" }] },
        ["body", "triggers", "0", "timezone"],
      ],
      [{ triggers: [] }, ["body", "triggers"]],
      [{ triggers: Array.from({ length: 11 }, () => ({ kind: "webhook" })) }, ["body", "triggers"]],
      [
        { triggers: [{ kind: "event", types: ["issue.updated"], filter: { status: "nope" } }] },
        ["body", "triggers", "0", "filter", "status"],
      ],
      [{ overlap: "sometimes" }, ["body", "overlap"]],
    ];
    for (const [overrides, loc] of cases) {
      const response = await f.t.api.post(path(), autopilotBody(f.agentId, overrides), { token: f.member.token });
      expect(response.status, JSON.stringify(overrides)).toBe(422);
      expect(
        response.body.detail.map((issue: { loc: unknown }) => issue.loc),
        JSON.stringify(overrides),
      ).toContainEqual(loc);
    }
  });

  it("an agent, project or label of another workspace is 404, and nothing is created", async () => {
    const foreignAgent = await insertAgent(f.t, f.otherWs, "Foreign");
    const foreignProject = await createProject(f.t.api, f.otherWs, f.outsider.token);
    const foreignLabel = await createLabel(f.t.api, f.otherWs, f.outsider.token, "foreign");
    const before = (await f.t.api.get(path(), { token: f.owner.token })).body.length;
    const refused = [
      [autopilotBody(foreignAgent), "Agent not found"],
      [autopilotBody(unknownId()), "Agent not found"],
      [autopilotBody(f.agentId, { project_id: foreignProject.id }), "Project not found"],
      [autopilotBody(f.agentId, { issue: { title: "x", labels: [foreignLabel.id] } }), "Label not found"],
    ] as const;
    for (const [body, detail] of refused) {
      expect(await f.t.api.post(path(), body, { token: f.member.token })).toMatchObject({
        status: 404,
        body: { detail },
      });
    }
    expect((await f.t.api.get(path(), { token: f.owner.token })).body.length).toBe(before);
    const mine = await createAutopilot(f.t.api, f.ws, f.member.token, autopilotBody(f.agentId));
    const patched = await f.t.api.patch(path(`/${mine.id}`), { agent_id: foreignAgent }, { token: f.member.token });
    expect(patched).toMatchObject({ status: 404, body: { detail: "Agent not found" } });
  });

  it("role rules: members read; the creator and admins change and delete; others 403; outsiders 403", async () => {
    const mine = await createAutopilot(f.t.api, f.ws, f.admin.token, autopilotBody(f.agentId));
    expect((await f.t.api.get(path(`/${mine.id}`), { token: f.member.token })).status).toBe(200);
    expect((await f.t.api.patch(path(`/${mine.id}`), { name: "x" }, { token: f.member.token })).status).toBe(403);
    expect((await f.t.api.delete(path(`/${mine.id}`), { token: f.member.token })).status).toBe(403);
    expect((await f.t.api.get(path(`/${mine.id}`), { token: f.outsider.token })).status).toBe(403);
    expect(
      (await f.t.api.get(`workspaces/${f.otherWs}/autopilots/${mine.id}`, { token: f.outsider.token })).status,
    ).toBe(404);
    const theirs = await createAutopilot(f.t.api, f.ws, f.member.token, autopilotBody(f.agentId));
    expect(await f.t.api.patch(path(`/${theirs.id}`), { name: "Renamed" }, { token: f.member.token })).toMatchObject({
      status: 200,
      body: { name: "Renamed" },
    });
    expect(
      (await f.t.api.patch(path(`/${theirs.id}`), { enabled: false }, { token: f.admin.token })).body,
    ).toMatchObject({ enabled: false, next_fire_at: null });
    expect((await f.t.api.delete(path(`/${theirs.id}`), { token: f.owner.token })).status).toBe(204);
    expect((await f.t.api.get(path(`/${theirs.id}`), { token: f.member.token })).status).toBe(404);
    expect((await f.t.api.get(path(`/${unknownId()}`), { token: f.member.token })).status).toBe(404);
    expect((await f.t.api.get(path("/not-an-id"), { token: f.member.token })).status).toBe(404);
  });

  it("fire now: an issue in the creator's name, assigned to the agent, with the template rendered as text", async () => {
    const project = await createProject(f.t.api, f.ws, f.owner.token);
    const label = await createLabel(f.t.api, f.ws, f.owner.token, "autopilot");
    const autopilot = await createAutopilot(
      f.t.api,
      f.ws,
      f.member.token,
      autopilotBody(f.agentId, {
        name: "Notes {{date}}",
        project_id: project.id,
        issue: {
          title: "{{autopilot}}: {{trigger}} on {{date}}",
          description: "at {{datetime}} {{payload.missing}}|{{event.x}}|{{unknown}}",
          priority: "high",
          labels: [label.id],
        },
      }),
    );
    const fired = await f.t.api.post(path(`/${autopilot.id}/fire`), undefined, { token: f.owner.token });
    expect(fired).toMatchObject({
      status: 201,
      body: { autopilot_id: autopilot.id, trigger_kind: "manual", status: "issue_created", reason: null },
    });
    const issue = (await f.t.api.get(`workspaces/${f.ws}/issues/${fired.body.issue_id}`, { token: f.owner.token }))
      .body;
    const today = new Date().toISOString().slice(0, 10);
    expect(issue).toMatchObject({
      // A placeholder inside a value stays as text: the autopilot's name is not rendered again.
      title: `Notes {{date}}: manual on ${today}`,
      priority: "high",
      project_id: project.id,
      assignee_type: "agent",
      assignee_id: f.agentId,
      creator_type: "member",
      creator_id: f.member.user.id,
      label_ids: [label.id],
    });
    expect(issue.description).toMatch(/^at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00 \|\|\{\{unknown\}\}$/);
    const created = (await activityOf(f.t, f.ws)).find(
      (row) => row.action === "issue.created" && row.entity_id === issue.id,
    );
    expect(created).toMatchObject({ actor_type: "autopilot", actor_id: autopilot.id });
    // The agent's task is queued with the issue, as for any assignment.
    const tasks = await f.t.db.selectFrom("tasks").selectAll().where("issue_id", "=", issue.id).execute();
    expect(tasks).toMatchObject([{ agent_id: f.agentId, trigger: "assigned", status: "queued" }]);
    const events = await f.t.db
      .selectFrom("events")
      .select(["type", "actor_type", "actor_id", "issue_id"])
      .where("entity_id", "=", autopilot.id)
      .where("type", "=", "autopilot.fired")
      .execute();
    expect(events).toEqual([
      { type: "autopilot.fired", actor_type: "autopilot", actor_id: autopilot.id, issue_id: issue.id },
    ]);
    expect((await f.t.api.get(path(`/${autopilot.id}`), { token: f.member.token })).body.last_fired_at).toBe(
      fired.body.created_at,
    );
  });

  it("overlap skip: a second fire while the issue is open is a skipped run (with its event); done opens the way", async () => {
    const autopilot = await createAutopilot(f.t.api, f.ws, f.member.token, autopilotBody(f.agentId));
    const first = (await f.t.api.post(path(`/${autopilot.id}/fire`), undefined, { token: f.member.token })).body;
    const second = (await f.t.api.post(path(`/${autopilot.id}/fire`), undefined, { token: f.member.token })).body;
    expect(second).toMatchObject({ status: "skipped", issue_id: null, reason: expect.stringContaining("overlap") });
    await f.t.api.patch(`workspaces/${f.ws}/issues/${first.issue_id}`, { status: "done" }, { token: f.member.token });
    const third = (await f.t.api.post(path(`/${autopilot.id}/fire`), undefined, { token: f.member.token })).body;
    expect(third.status).toBe("issue_created");
    const runs = (await f.t.api.get(path(`/${autopilot.id}/runs`), { token: f.member.token })).body;
    expect(runs.map((run: { id: string }) => run.id)).toEqual([third.id, second.id, first.id]);
    expect((await f.t.api.get(path(`/${autopilot.id}/runs?limit=1&offset=1`), { token: f.member.token })).body).toEqual(
      [second],
    );
    const skipped = await f.t.db
      .selectFrom("events")
      .select("data")
      .where("entity_id", "=", autopilot.id)
      .where("type", "=", "autopilot.skipped")
      .execute();
    expect(skipped.map((row) => JSON.parse(row.data).run_id)).toEqual([second.id]);
  });

  it("overlap allow fires every time; deleting the autopilot keeps its issues", async () => {
    const autopilot = await createAutopilot(
      f.t.api,
      f.ws,
      f.member.token,
      autopilotBody(f.agentId, { overlap: "allow" }),
    );
    const runs = [];
    for (let i = 0; i < 3; i++)
      runs.push((await f.t.api.post(path(`/${autopilot.id}/fire`), undefined, { token: f.member.token })).body);
    expect(runs.map((run) => run.status)).toEqual(["issue_created", "issue_created", "issue_created"]);
    expect((await f.t.api.delete(path(`/${autopilot.id}`), { token: f.member.token })).status).toBe(204);
    for (const run of runs) {
      expect((await f.t.api.get(`workspaces/${f.ws}/issues/${run.issue_id}`, { token: f.member.token })).status).toBe(
        200,
      );
    }
    expect((await f.t.api.get(path(`/${autopilot.id}/runs`), { token: f.member.token })).status).toBe(404);
  });
});

describe.each(testDialects)("autopilots' hourly cap (%s)", (dialect) => {
  let f: AutopilotFixture;

  beforeAll(async () => {
    f = await startAutopilotFixture(dialect, { env: { AUTOPILOT_MAX_FIRES_PER_HOUR: "2" } });
  });
  afterAll(() => f.t.close());

  it("beyond AUTOPILOT_MAX_FIRES_PER_HOUR a fire is skipped with reason rate limit", async () => {
    const autopilot = await createAutopilot(
      f.t.api,
      f.ws,
      f.member.token,
      autopilotBody(f.agentId, { overlap: "allow" }),
    );
    const fire = async () =>
      (await f.t.api.post(`workspaces/${f.ws}/autopilots/${autopilot.id}/fire`, undefined, { token: f.member.token }))
        .body;
    expect([(await fire()).status, (await fire()).status]).toEqual(["issue_created", "issue_created"]);
    expect(await fire()).toMatchObject({ status: "skipped", reason: "rate limit", issue_id: null });
  });
});
