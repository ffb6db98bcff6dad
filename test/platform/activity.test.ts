import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../src/db/index.ts";
import { newId, now, toJson } from "../../src/db/values.ts";
import { recordActivity } from "../../src/events/activity.ts";
import { createWorkspaceWithRoles, registerUser, startTestApp, type TestApp } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";
import { PAGE_LIMITS, pageThrough } from "../helpers/page-through.ts";

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/;

// The issues API lives in another feature; these tests only need issue rows to hang activity on.
async function insertIssue(db: Db, workspaceId: string, number: number): Promise<string> {
  const id = newId();
  const at = now();
  await db
    .insertInto("issues")
    .values({
      id,
      workspace_id: workspaceId,
      project_id: null,
      title: `Issue ${number}`,
      description: null,
      status: "backlog",
      priority: "none",
      assignee_type: null,
      assignee_id: null,
      creator_type: "member",
      creator_id: null,
      number,
      parent_issue_id: null,
      acceptance_criteria: null,
      position: 0,
      due_date: null,
      created_at: at,
      updated_at: at,
    })
    .execute();
  return id;
}

async function newestFirstIds(db: Db, workspaceId: string, issueId?: string): Promise<string[]> {
  let query = db.selectFrom("activity").select("id").where("workspace_id", "=", workspaceId);
  if (issueId) query = query.where("issue_id", "=", issueId);
  const rows = await query.orderBy("created_at", "desc").orderBy("id", "desc").execute();
  return rows.map((row) => row.id);
}

describe.each(testDialects)("activity (%s)", (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(dialect);
  });
  afterAll(() => t.close());

  it("the workspace feed shows every mutation newest first, with details as an object", async () => {
    const ws = await createWorkspaceWithRoles(t.api);
    const agent = await t.api.post(`workspaces/${ws.workspaceId}/agents/`, { name: "Bot" }, { token: ws.admin.token });
    await t.api.patch(`workspaces/${ws.workspaceId}/members/${ws.member.user.id}`, { role: "admin" }, ws.owner);
    await t.api.patch(`workspaces/${ws.workspaceId}`, { description: "Ours" }, { token: ws.owner.token });

    for (const path of [`workspaces/${ws.workspaceId}/activity`, `workspaces/${ws.workspaceId}/activity/`]) {
      const feed = await t.api.get(path, { token: ws.member.token });
      expect(feed.status).toBe(200);
      expect(feed.body.map((entry: { action: string }) => entry.action)).toEqual([
        "workspace.updated",
        "member.updated",
        "agent.created",
        "member.added",
        "member.added",
        "workspace.created",
      ]);
      const [workspaceUpdated, memberUpdated, agentCreated] = feed.body;
      expect(workspaceUpdated).toEqual({
        id: expect.any(String),
        workspace_id: ws.workspaceId,
        entity_type: "workspace",
        entity_id: ws.workspaceId,
        issue_id: null,
        actor_type: "member",
        actor_id: ws.owner.user.id,
        action: "workspace.updated",
        details: { changes: { description: { from: null, to: "Ours" } } },
        created_at: expect.stringMatching(TIMESTAMP),
      });
      expect(memberUpdated.details).toEqual({
        user_id: ws.member.user.id,
        user_name: "member",
        changes: { role: { from: "member", to: "admin" } },
      });
      expect(agentCreated).toMatchObject({ entity_type: "agent", entity_id: agent.body.id, details: { name: "Bot" } });
      const times = feed.body.map((entry: { created_at: string }) => entry.created_at);
      expect([...times].sort().reverse()).toEqual(times);
    }
  });

  it("entries with the same timestamp are ordered by id, newest first, and page without gaps", async () => {
    const { token } = await registerUser(t.api, "ties");
    const workspace = await t.api.post("workspaces/", { name: "Ties" }, { token });
    const sameTime = "2999-01-01T00:00:00.000000";
    const ids = ["a", "b", "c", "d", "e"].map((c) => `${c.repeat(8)}-0000-4000-8000-000000000000`);
    for (const id of ids) {
      await t.db
        .insertInto("activity")
        .values({
          id,
          workspace_id: workspace.body.id,
          entity_type: "test",
          entity_id: null,
          issue_id: null,
          actor_type: "member",
          actor_id: null,
          action: "test.tied",
          details: toJson({}),
          created_at: sameTime,
        })
        .execute();
    }
    const path = `workspaces/${workspace.body.id}/activity`;
    const oneByOne = await pageThrough<{ id: string }>(t.api, path, 1, { token });
    expect(oneByOne.slice(0, 5).map((entry) => entry.id)).toEqual([...ids].reverse());
    expect(oneByOne.at(-1)).toMatchObject({ action: "workspace.created" });
  });

  it("activity pages to the end with limit 1, 2, 50 and 200; 500 gives at most 200; bad paging is 422", async () => {
    const owner = await registerUser(t.api, "feed");
    const workspace = await t.api.post("workspaces/", { name: "Busy" }, { token: owner.token });
    const workspaceId: string = workspace.body.id;
    for (let index = 0; index < 204; index++) {
      await recordActivity(t.db, {
        workspaceId,
        entityType: "test",
        entityId: null,
        actor: { type: "member", id: owner.user.id },
        action: "test.happened",
        details: { index },
      });
    }
    const expected = await newestFirstIds(t.db, workspaceId);
    expect(expected).toHaveLength(205);
    const path = `workspaces/${workspaceId}/activity`;
    for (const limit of PAGE_LIMITS) {
      const all = await pageThrough<{ id: string }>(t.api, path, limit, owner);
      expect(
        all.map((entry) => entry.id),
        `limit ${limit}`,
      ).toEqual(expected);
    }
    expect((await t.api.get(`${path}?limit=500`, owner)).body).toHaveLength(200);
    expect((await pageThrough<{ id: string }>(t.api, path, 500, owner, 200)).map((entry) => entry.id)).toEqual(
      expected,
    );
    const firstPage = await t.api.get(path, owner);
    expect(firstPage.body).toHaveLength(50);
    expect(firstPage.body[0].details).toEqual({ index: 203 });
    for (const query of ["limit=0", "offset=-1", "limit=abc", "offset=1.5"]) {
      const response = await t.api.get(`${path}?${query}`, owner);
      expect(response.status, query).toBe(422);
      expect(response.body.detail[0].loc[0], query).toBe("query");
    }
  });

  it("an issue's feed holds only that issue's activity, newest first, paged to the end", async () => {
    const ws = await createWorkspaceWithRoles(t.api);
    const issueId = await insertIssue(t.db, ws.workspaceId, 1);
    const otherIssueId = await insertIssue(t.db, ws.workspaceId, 2);
    const actor = { type: "member" as const, id: ws.member.user.id };
    for (let index = 0; index < 203; index++) {
      await recordActivity(t.db, {
        workspaceId: ws.workspaceId,
        entityType: index % 3 === 0 ? "comment" : "issue",
        entityId: issueId,
        issueId: index % 2 === 0 ? issueId : otherIssueId,
        actor,
        action: index % 3 === 0 ? "comment.created" : "issue.updated",
        details: { index },
      });
    }
    const expected = await newestFirstIds(t.db, ws.workspaceId, issueId);
    expect(expected).toHaveLength(102);
    const path = `workspaces/${ws.workspaceId}/issues/${issueId}/activity`;
    for (const limit of [...PAGE_LIMITS, 500]) {
      const all = await pageThrough<{ id: string; issue_id: string }>(t.api, path, limit, ws.member);
      expect(
        all.map((entry) => entry.id),
        `limit ${limit}`,
      ).toEqual(expected);
      expect(new Set(all.map((entry) => entry.issue_id))).toEqual(new Set([issueId]));
    }
    const first = await t.api.get(`${path}?limit=1`, ws.member);
    expect(first.body).toEqual([
      expect.objectContaining({ issue_id: issueId, action: "issue.updated", details: { index: 202 } }),
    ]);
    expect((await t.api.get(`${path}?limit=0`, ws.member)).status).toBe(422);

    const empty = await insertIssue(t.db, ws.workspaceId, 3);
    expect((await t.api.get(`workspaces/${ws.workspaceId}/issues/${empty}/activity`, ws.member)).body).toEqual([]);
  });

  it("an issue's feed is 404 for an unknown issue or another workspace's, and 403 for outsiders", async () => {
    const ws = await createWorkspaceWithRoles(t.api);
    const other = await t.api.post("workspaces/", { name: "Other" }, { token: ws.outsider.token });
    const theirIssue = await insertIssue(t.db, other.body.id, 1);
    const mine = await insertIssue(t.db, ws.workspaceId, 1);
    for (const id of [theirIssue, "00000000-0000-4000-8000-000000000000", "not-an-id", "%00"]) {
      const response = await t.api.get(`workspaces/${ws.workspaceId}/issues/${id}/activity`, ws.member);
      expect(response, id).toMatchObject({ status: 404, body: { detail: "Issue not found" } });
    }
    const theirs = await t.api.get(`workspaces/${other.body.id}/issues/${theirIssue}/activity`, ws.outsider);
    expect(theirs).toMatchObject({ status: 200, body: [] });

    for (const path of [
      `workspaces/${ws.workspaceId}/activity`,
      `workspaces/${ws.workspaceId}/issues/${mine}/activity`,
    ]) {
      expect((await t.api.get(path, ws.outsider)).status, path).toBe(403);
      expect((await t.api.get(`${path}?limit=0`, ws.outsider)).status, path).toBe(403);
      expect((await t.api.get(path)).status, path).toBe(401);
    }
  });
});
