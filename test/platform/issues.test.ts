import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspaceWithRoles, registerUser } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";
import { pageThrough } from "../helpers/page-through.ts";
import {
  activityOf,
  createIssue,
  createLabel,
  createProject,
  insertAgent,
  startWorkspaceFixture,
  unknownId,
  type WorkspaceFixture,
} from "../helpers/platform.ts";

describe.each(testDialects)("issues (%s)", (dialect) => {
  let { t, ws, owner, admin, member, outsider, otherWs } = {} as WorkspaceFixture;
  const path = (suffix = "") => `workspaces/${ws}/issues/${suffix}`;

  beforeAll(async () => {
    ({ t, ws, owner, admin, member, outsider, otherWs } = await startWorkspaceFixture(dialect));
  });
  afterAll(() => t.close());

  it("POST issues/ → 201 with every documented field, logged as issue.created", async () => {
    const response = await t.api.post(
      path(),
      { title: "  Fix login  ", acceptance_criteria: ["works", "is fast"], unknown_field: 1 },
      { token: member.token },
    );
    expect(response.status).toBe(201);
    const issue = response.body;
    expect(issue).toMatchObject({
      workspace_id: ws,
      project_id: null,
      title: "Fix login",
      description: null,
      status: "backlog",
      priority: "none",
      assignee_type: null,
      assignee_id: null,
      creator_type: "member",
      creator_id: member.user.id,
      parent_issue_id: null,
      acceptance_criteria: ["works", "is fast"],
      position: 0,
      due_date: null,
    });
    expect(issue.identifier).toBe(`ISS-${issue.number}`);
    expect(issue.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/);
    expect(issue).not.toHaveProperty("unknown_field");
    expect((await t.api.get(path(issue.id), { token: outsider.token })).status).toBe(403);
    expect(await t.api.get(path(issue.id), { token: admin.token })).toMatchObject({ status: 200, body: issue });
    const logged = (await activityOf(t, ws)).filter((row) => row.entity_id === issue.id);
    expect(logged).toMatchObject([
      {
        action: "issue.created",
        entity_type: "issue",
        issue_id: issue.id,
        actor_type: "member",
        actor_id: member.user.id,
        details: { identifier: issue.identifier },
      },
    ]);
  });

  it("identifier follows the workspace's issue_prefix", async () => {
    const fresh = await createWorkspaceWithRoles(t.api);
    await t.api.patch(`workspaces/${fresh.workspaceId}`, { issue_prefix: "ENG" }, { token: fresh.owner.token });
    const first = await createIssue(t.api, fresh.workspaceId, fresh.member.token);
    const second = await createIssue(t.api, fresh.workspaceId, fresh.member.token);
    expect([first.identifier, second.identifier]).toEqual(["ENG-1", "ENG-2"]);
  });

  it("50 parallel creates in one workspace get the numbers 1..50, no gaps, no duplicates", async () => {
    const fresh = await createWorkspaceWithRoles(t.api);
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        t.api.post(
          `workspaces/${fresh.workspaceId}/issues/`,
          { title: `Parallel ${index}` },
          { token: fresh.member.token },
        ),
      ),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(50).fill(201));
    const numbers = responses.map((response) => response.body.number).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 50 }, (_, index) => index + 1));
    const next = await createIssue(t.api, fresh.workspaceId, fresh.member.token);
    expect(next.number).toBe(51);
  });

  it("refuses bad input with 422 and stores nothing", async () => {
    const before = await t.db.selectFrom("issues").select("id").where("workspace_id", "=", ws).execute();
    const bad: unknown[] = [
      {},
      { title: "" },
      { title: "   " },
      { title: 42 },
      { title: null },
      { title: "x", status: "open" },
      { title: "x", priority: "p1" },
      { title: "x", assignee_type: "robot", assignee_id: member.user.id },
      { title: "x", assignee_id: member.user.id },
      { title: "x", assignee_type: "member" },
      { title: "x", acceptance_criteria: "not a list" },
      { title: "x", acceptance_criteria: [1, 2] },
      { title: "x", position: "first" },
      { title: "x", due_date: "tomorrow" },
      { title: "x", project_id: 12 },
      { title: "nul \u0000 byte" },
      { title: "x".repeat(501) },
      [1, 2],
      "just a string",
    ];
    for (const body of bad) {
      const response = await t.api.post(path(), body, { token: member.token });
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(Array.isArray(response.body.detail)).toBe(true);
      expect(response.body.detail[0].loc[0]).toBe("body");
    }
    const malformed = await t.api.post(path(), undefined, { token: member.token, raw: "{not json" });
    expect(malformed).toMatchObject({ status: 422, body: { detail: [{ type: "json_invalid" }] } });
    const after = await t.db.selectFrom("issues").select("id").where("workspace_id", "=", ws).execute();
    expect(after.length).toBe(before.length);
  });

  it("ids in the body from another workspace (or unknown) are 404 '<Thing> not found'", async () => {
    const foreignProject = await createProject(t.api, otherWs, outsider.token);
    const foreignIssue = await createIssue(t.api, otherWs, outsider.token);
    const foreignAgent = await insertAgent(t, otherWs);
    const cases: [Record<string, unknown>, string][] = [
      [{ project_id: foreignProject.id }, "Project not found"],
      [{ project_id: "not-a-uuid" }, "Project not found"],
      [{ parent_issue_id: foreignIssue.id }, "Issue not found"],
      [{ assignee_type: "member", assignee_id: outsider.user.id }, "Member not found"],
      [{ assignee_type: "member", assignee_id: unknownId() }, "Member not found"],
      [{ assignee_type: "agent", assignee_id: foreignAgent }, "Agent not found"],
      [{ assignee_type: "agent", assignee_id: member.user.id }, "Agent not found"],
    ];
    const mine = await createIssue(t.api, ws, member.token);
    for (const [body, detail] of cases) {
      const created = await t.api.post(path(), { title: "x", ...body }, { token: member.token });
      expect(created, JSON.stringify(body)).toMatchObject({ status: 404, body: { detail } });
      const patched = await t.api.patch(path(mine.id), body, { token: member.token });
      expect(patched, JSON.stringify(body)).toMatchObject({ status: 404, body: { detail } });
    }
  });

  it("assigns to a member (a user id) or to an agent of this workspace", async () => {
    const agentId = await insertAgent(t, ws, "Helper");
    const toMember = await createIssue(t.api, ws, member.token, {
      assignee_type: "member",
      assignee_id: admin.user.id,
    });
    expect(toMember).toMatchObject({ assignee_type: "member", assignee_id: admin.user.id });
    const toAgent = await t.api.patch(
      path(toMember.id),
      { assignee_type: "agent", assignee_id: agentId },
      {
        token: member.token,
      },
    );
    expect(toAgent.body).toMatchObject({ assignee_type: "agent", assignee_id: agentId });
    const cleared = await t.api.patch(path(toMember.id), { assignee_id: null }, { token: member.token });
    expect(cleared.body).toMatchObject({ assignee_type: null, assignee_id: null });
  });

  it("PATCH is a merge patch: absent unchanged, null clears, null on a required field is 422", async () => {
    const project = await createProject(t.api, ws, member.token);
    const issue = await createIssue(t.api, ws, member.token, {
      description: "details",
      project_id: project.id,
      priority: "high",
      due_date: "2026-12-01",
    });
    const renamed = await t.api.patch(path(issue.id), { title: "Renamed" }, { token: member.token });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({
      title: "Renamed",
      description: "details",
      project_id: project.id,
      priority: "high",
      due_date: "2026-12-01",
    });
    const cleared = await t.api.patch(
      path(issue.id),
      { description: null, project_id: null, due_date: null },
      {
        token: member.token,
      },
    );
    expect(cleared.body).toMatchObject({ title: "Renamed", description: null, project_id: null, due_date: null });
    for (const body of [
      { title: null },
      { status: null },
      { priority: null },
      { position: null },
      { status: "nope" },
    ]) {
      const response = await t.api.patch(path(issue.id), body, { token: member.token });
      expect(response.status, JSON.stringify(body)).toBe(422);
    }
    const unchanged = await t.api.get(path(issue.id), { token: member.token });
    expect(unchanged.body).toEqual(cleared.body);
  });

  it("logs issue.updated with details.changes = {field: {from, to}}, and nothing for a no-op", async () => {
    const issue = await createIssue(t.api, ws, member.token, { title: "Before" });
    await t.api.patch(path(issue.id), { title: "After", status: "todo" }, { token: admin.token });
    await t.api.patch(path(issue.id), { title: "After" }, { token: admin.token });
    const updates = (await activityOf(t, ws)).filter(
      (row) => row.issue_id === issue.id && row.action === "issue.updated",
    );
    expect(updates).toHaveLength(1);
    expect(updates[0]).toMatchObject({
      actor_id: admin.user.id,
      details: { changes: { title: { from: "Before", to: "After" }, status: { from: "backlog", to: "todo" } } },
    });
  });

  it("a parent must not be the issue itself or one of its sub-issues", async () => {
    const parent = await createIssue(t.api, ws, member.token);
    const child = await createIssue(t.api, ws, member.token, { parent_issue_id: parent.id });
    expect(child.parent_issue_id).toBe(parent.id);
    expect((await t.api.patch(path(parent.id), { parent_issue_id: parent.id }, { token: member.token })).status).toBe(
      422,
    );
    expect((await t.api.patch(path(parent.id), { parent_issue_id: child.id }, { token: member.token })).status).toBe(
      422,
    );
  });

  it("delete: admin or creator only; removes comments, labels, dependencies; sub-issues lose their parent", async () => {
    const parent = await createIssue(t.api, ws, member.token);
    const child = await createIssue(t.api, ws, admin.token, { parent_issue_id: parent.id });
    const other = await createIssue(t.api, ws, admin.token);
    const label = await createLabel(t.api, ws, admin.token, `doomed-${dialect}`);
    await t.api.post(path(`${parent.id}/comments`), { content: "hello" }, { token: admin.token });
    await t.api.post(path(`${parent.id}/labels/${label.id}`), undefined, { token: member.token });
    await t.api.post(path(`${other.id}/dependencies/`), { depends_on_issue_id: parent.id }, { token: admin.token });

    const stranger = await registerUser(t.api, "stranger");
    expect((await t.api.delete(path(parent.id), { token: stranger.token })).status).toBe(403);
    expect(await t.api.delete(path(child.id), { token: member.token })).toMatchObject({ status: 403 });
    expect((await t.api.delete(path(parent.id), { token: member.token })).status).toBe(204);
    expect(await t.api.get(path(parent.id), { token: member.token })).toMatchObject({
      status: 404,
      body: { detail: "Issue not found" },
    });
    expect((await t.api.delete(path(parent.id), { token: member.token })).status).toBe(404);

    expect((await t.api.get(path(child.id), { token: member.token })).body.parent_issue_id).toBeNull();
    const leftovers = await Promise.all([
      t.db.selectFrom("comments").select("id").where("issue_id", "=", parent.id).execute(),
      t.db.selectFrom("issue_labels").select("label_id").where("issue_id", "=", parent.id).execute(),
      t.db.selectFrom("issue_dependencies").select("id").where("depends_on_issue_id", "=", parent.id).execute(),
    ]);
    expect(leftovers.map((rows) => rows.length)).toEqual([0, 0, 0]);
    expect((await t.api.get(`workspaces/${ws}/labels/${label.id}`, { token: member.token })).status).toBe(200);

    // An admin may delete someone else's issue.
    expect((await t.api.delete(path(child.id), { token: admin.token })).status).toBe(204);
    const deleted = (await activityOf(t, ws)).filter((row) => row.action === "issue.deleted");
    expect(deleted.map((row) => row.issue_id)).toEqual(expect.arrayContaining([parent.id, child.id]));
  });

  it("another workspace's issue, an unknown id and a malformed id are all 404", async () => {
    const foreign = await createIssue(t.api, otherWs, outsider.token);
    for (const id of [foreign.id, unknownId(), "not-a-uuid", "\u0000", "1'; DROP TABLE issues;--"]) {
      const encoded = encodeURIComponent(id);
      for (const response of [
        await t.api.get(path(encoded), { token: owner.token }),
        await t.api.patch(path(encoded), { title: "mine now" }, { token: owner.token }),
        await t.api.delete(path(encoded), { token: owner.token }),
      ]) {
        expect(response, id).toMatchObject({ status: 404, body: { detail: "Issue not found" } });
      }
    }
    expect((await t.api.get(`workspaces/${otherWs}/issues/${foreign.id}`, { token: outsider.token })).body.title).toBe(
      "An issue",
    );
  });

  it("checks 401 before 403 before 422", async () => {
    expect((await t.api.post(path(), { title: 5 })).status).toBe(401);
    expect((await t.api.post(path(), { title: 5 }, { token: outsider.token })).status).toBe(403);
    expect((await t.api.post(path(), { title: 5 }, { token: member.token })).status).toBe(422);
    expect((await t.api.get(`workspaces/${unknownId()}/issues/`, { token: member.token })).status).toBe(403);
    expect((await t.api.get("workspaces/%00/issues/", { token: member.token })).status).toBe(403);
  });

  describe("listing", () => {
    let listWs: string;
    let token: string;
    let userId: string;
    let issues: any[];
    let agentId: string;
    let labelA: any;
    let labelB: any;
    let project: any;

    beforeAll(async () => {
      const fresh = await createWorkspaceWithRoles(t.api);
      listWs = fresh.workspaceId;
      token = fresh.member.token;
      userId = fresh.member.user.id;
      agentId = await insertAgent(t, listWs);
      project = await createProject(t.api, listWs, token);
      labelA = await createLabel(t.api, listWs, fresh.admin.token, "bug");
      labelB = await createLabel(t.api, listWs, fresh.admin.token, "ui");
      const statuses = ["backlog", "todo", "in_progress", "done"];
      const priorities = ["urgent", "high", "medium", "low", "none"];
      issues = [];
      for (let index = 0; index < 23; index++) {
        issues.push(
          await createIssue(t.api, listWs, index % 2 === 0 ? token : fresh.admin.token, {
            title: index === 7 ? "Crash on 100% Zoom_level" : `Issue number ${index}`,
            description: index === 3 ? "The LOGIN page flickers" : null,
            status: statuses[index % 4],
            priority: priorities[index % 5],
            project_id: index < 5 ? project.id : null,
            ...(index % 3 === 0 && { assignee_type: "member", assignee_id: userId }),
            ...(index % 3 === 1 && { assignee_type: "agent", assignee_id: agentId }),
            ...(index > 20 && { parent_issue_id: issues[0].id }),
          }),
        );
      }
      await t.api.post(`workspaces/${listWs}/issues/${issues[2].id}/labels/${labelA.id}`, undefined, { token });
      await t.api.post(`workspaces/${listWs}/issues/${issues[4].id}/labels/${labelB.id}`, undefined, { token });
      await t.api.post(`workspaces/${listWs}/issues/${issues[4].id}/labels/${labelA.id}`, undefined, { token });
    });

    const list = (query = "") => t.api.get(`workspaces/${listWs}/issues/${query}`, { token });
    const numbersOf = (response: { body: any[] }) => response.body.map((issue) => issue.number);
    const expected = (keep: (issue: any, index: number) => boolean) => issues.filter(keep).map((issue) => issue.number);

    it("pages to the end with limit 1, 2, 50 and 200 in order position, created_at, id", async () => {
      const all = issues.map((issue) => issue.id);
      for (const limit of [1, 2, 50, 200]) {
        const paged = await pageThrough(t.api, `workspaces/${listWs}/issues/`, limit, { token });
        expect(
          paged.map((issue) => issue.id),
          `limit ${limit}`,
        ).toEqual(all);
      }
      expect((await list()).body).toHaveLength(23);
      expect((await t.api.get(`workspaces/${listWs}/issues`, { token })).body).toHaveLength(23);
    });

    it("orders by position first", async () => {
      await t.api.patch(`workspaces/${listWs}/issues/${issues[10].id}`, { position: -1 }, { token });
      expect((await list("?limit=1")).body[0].id).toBe(issues[10].id);
      await t.api.patch(`workspaces/${listWs}/issues/${issues[10].id}`, { position: 0 }, { token });
    });

    it("filters by each field, several values comma-separated", async () => {
      expect(numbersOf(await list("?status=todo"))).toEqual(expected((issue) => issue.status === "todo"));
      expect(numbersOf(await list("?status=todo,done"))).toEqual(
        expected((issue) => ["todo", "done"].includes(issue.status)),
      );
      expect(numbersOf(await list("?priority=urgent,low"))).toEqual(
        expected((issue) => ["urgent", "low"].includes(issue.priority)),
      );
      expect(numbersOf(await list(`?project_id=${project.id}`))).toEqual(expected((_, index) => index < 5));
      expect(numbersOf(await list(`?assignee_id=${userId}`))).toEqual(expected((_, index) => index % 3 === 0));
      expect(numbersOf(await list(`?assignee_id=${userId},${agentId}`))).toEqual(
        expected((_, index) => index % 3 !== 2),
      );
      expect(numbersOf(await list("?assignee_type=agent"))).toEqual(expected((_, index) => index % 3 === 1));
      expect(numbersOf(await list(`?creator_id=${userId}`))).toEqual(expected((_, index) => index % 2 === 0));
      expect(numbersOf(await list(`?parent_issue_id=${issues[0].id}`))).toEqual(expected((_, index) => index > 20));
      expect(numbersOf(await list(`?label_id=${labelA.id}`))).toEqual([issues[2].number, issues[4].number]);
      expect(numbersOf(await list(`?label_id=${labelB.id}`))).toEqual([issues[4].number]);
      expect(numbersOf(await list(`?label_id=${labelA.id},${labelB.id}&status=todo`))).toEqual([]);
      expect(numbersOf(await list(`?label_id=${labelA.id}&priority=none`))).toEqual([issues[4].number]);
      expect(numbersOf(await list(`?status=done&assignee_type=member&limit=2&offset=1`))).toEqual(
        expected((issue, index) => issue.status === "done" && index % 3 === 0).slice(1, 3),
      );
      expect((await list(`?project_id=${unknownId()}`)).body).toEqual([]);
      expect((await list(`?label_id=not-an-id`)).body).toEqual([]);
    });

    it("q searches title, description and identifier, case-insensitively, with % and _ taken literally", async () => {
      expect(numbersOf(await list("?q=login"))).toEqual([issues[3].number]);
      expect(numbersOf(await list("?q=CRASH"))).toEqual([issues[7].number]);
      expect(numbersOf(await list(`?q=${encodeURIComponent("100%")}`))).toEqual([issues[7].number]);
      expect(numbersOf(await list("?q=zoom_level"))).toEqual([issues[7].number]);
      expect(numbersOf(await list("?q=m_level"))).toEqual([issues[7].number]);
      expect((await list(`?q=${encodeURIComponent("%")}`)).body.map((issue: any) => issue.id)).toEqual([issues[7].id]);
      expect((await list("?q=_")).body).toHaveLength(1);
      expect(numbersOf(await list("?q=iss-12"))).toEqual([issues[11].number]);
      expect(numbersOf(await list("?q=number 1&status=todo"))).toEqual(
        expected((issue, index) => /number 1/.test(issue.title) && index % 4 === 1),
      );
      expect((await list("?q=nothing-like-this")).body).toEqual([]);
    });

    it("rejects bad filters and paging with 422 (query), and clamps limit above 200", async () => {
      for (const query of [
        "?status=open",
        "?status=todo,open",
        "?priority=p0",
        "?assignee_type=robot",
        "?limit=0",
        "?limit=-1",
        "?limit=abc",
        "?limit=1.5",
        "?offset=-1",
        "?offset=x",
        `?q=${encodeURIComponent("\u0000")}`,
      ]) {
        const response = await list(query);
        expect(response.status, query).toBe(422);
        expect(response.body.detail[0].loc[0]).toBe("query");
      }
      expect((await list("?limit=500")).body.length).toBeLessThanOrEqual(200);
    });
  });

  it("a limit of 500 returns at most 200 of 205 issues", async () => {
    const fresh = await createWorkspaceWithRoles(t.api);
    await Promise.all(
      Array.from({ length: 205 }, (_, index) =>
        t.api.post(
          `workspaces/${fresh.workspaceId}/issues/`,
          { title: `Bulk ${index}` },
          { token: fresh.member.token },
        ),
      ),
    );
    const page = await t.api.get(`workspaces/${fresh.workspaceId}/issues/?limit=500`, { token: fresh.member.token });
    expect(page.body).toHaveLength(200);
    const rest = await t.api.get(`workspaces/${fresh.workspaceId}/issues/?limit=500&offset=200`, {
      token: fresh.member.token,
    });
    expect(rest.body).toHaveLength(5);
  });
});
