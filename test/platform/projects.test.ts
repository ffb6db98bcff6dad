import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspaceWithRoles } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";
import { pageThrough } from "../helpers/page-through.ts";
import {
  activityOf,
  createIssue,
  createProject,
  insertAgent,
  startWorkspaceFixture,
  unknownId,
  type WorkspaceFixture,
} from "../helpers/platform.ts";

describe.each(testDialects)("projects (%s)", (dialect) => {
  let { t, ws, owner, admin, member, outsider, otherWs } = {} as WorkspaceFixture;
  const path = (suffix = "") => `workspaces/${ws}/projects/${suffix}`;

  beforeAll(async () => {
    ({ t, ws, owner, admin, member, outsider, otherWs } = await startWorkspaceFixture(dialect));
  });
  afterAll(() => t.close());

  it("POST projects/ → 201 with defaults; GET returns it; logged as project.created", async () => {
    const response = await t.api.post(path(), { title: "Launch", description: "Q3" }, { token: member.token });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      workspace_id: ws,
      title: "Launch",
      description: "Q3",
      icon: null,
      status: "planned",
      lead_type: null,
      lead_id: null,
      creator_id: member.user.id,
    });
    expect(response.body.updated_at).toBe(response.body.created_at);
    expect(await t.api.get(path(response.body.id), { token: owner.token })).toMatchObject({
      status: 200,
      body: response.body,
    });
    expect(await t.api.get(`workspaces/${ws}/projects/${response.body.id}/`, { token: owner.token })).toMatchObject({
      status: 200,
    });
    const logged = (await activityOf(t, ws)).filter((row) => row.entity_id === response.body.id);
    expect(logged).toMatchObject([{ action: "project.created", entity_type: "project", actor_id: member.user.id }]);
  });

  it("refuses bad input with 422: missing or blank title, bad status, bad lead_type, half a lead", async () => {
    for (const body of [
      {},
      { title: "" },
      { title: null },
      { title: ["x"] },
      { title: "x", status: "active" },
      { title: "x", lead_type: "team", lead_id: member.user.id },
      { title: "x", lead_id: member.user.id },
      { title: "x", lead_type: "member" },
      { title: "x", description: 5 },
    ]) {
      const response = await t.api.post(path(), body, { token: member.token });
      expect(response.status, JSON.stringify(body)).toBe(422);
    }
  });

  it("a lead must be a member or an agent of this workspace (else 404)", async () => {
    const agentId = await insertAgent(t, ws);
    const foreignAgent = await insertAgent(t, otherWs);
    const led = await createProject(t.api, ws, member.token, { lead_type: "agent", lead_id: agentId });
    expect(led).toMatchObject({ lead_type: "agent", lead_id: agentId });
    expect(
      await t.api.post(path(), { title: "x", lead_type: "member", lead_id: outsider.user.id }, { token: member.token }),
    ).toMatchObject({ status: 404, body: { detail: "Member not found" } });
    expect(
      await t.api.post(path(), { title: "x", lead_type: "agent", lead_id: foreignAgent }, { token: member.token }),
    ).toMatchObject({ status: 404, body: { detail: "Agent not found" } });
  });

  it("PATCH is a merge patch and logs project.updated with the changes", async () => {
    const project = await createProject(t.api, ws, member.token, { description: "keep", icon: "rocket" });
    const patched = await t.api.patch(path(project.id), { status: "in_progress", icon: null }, { token: member.token });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ title: "A project", description: "keep", icon: null, status: "in_progress" });
    for (const body of [{ title: null }, { status: null }, { status: "active" }, { title: "" }]) {
      expect((await t.api.patch(path(project.id), body, { token: member.token })).status, JSON.stringify(body)).toBe(
        422,
      );
    }
    const updates = (await activityOf(t, ws)).filter(
      (row) => row.entity_id === project.id && row.action === "project.updated",
    );
    expect(updates).toMatchObject([
      { details: { changes: { status: { from: "planned", to: "in_progress" }, icon: { from: "rocket", to: null } } } },
    ]);
  });

  it("PATCH and DELETE: admin, lead or creator; other members 403", async () => {
    const project = await createProject(t.api, ws, owner.token, { lead_type: "member", lead_id: admin.user.id });
    expect(await t.api.patch(path(project.id), { title: "Mine" }, { token: member.token })).toMatchObject({
      status: 403,
    });
    expect((await t.api.delete(path(project.id), { token: member.token })).status).toBe(403);
    // Making the member the lead lets them edit it.
    expect(
      (await t.api.patch(path(project.id), { lead_type: "member", lead_id: member.user.id }, { token: admin.token }))
        .status,
    ).toBe(200);
    expect((await t.api.patch(path(project.id), { title: "Led by me" }, { token: member.token })).status).toBe(200);
    // The creator (a plain member) may delete their own project.
    const own = await createProject(t.api, ws, member.token);
    expect((await t.api.delete(path(own.id), { token: member.token })).status).toBe(204);
    expect((await t.api.delete(path(project.id), { token: admin.token })).status).toBe(204);
    expect((await t.api.get(path(project.id), { token: admin.token })).status).toBe(404);
  });

  it("DELETE keeps the project's issues, with project_id cleared, and logs project.deleted", async () => {
    const project = await createProject(t.api, ws, member.token);
    const issue = await createIssue(t.api, ws, member.token, { project_id: project.id });
    expect((await t.api.delete(path(project.id), { token: member.token })).status).toBe(204);
    const after = await t.api.get(`workspaces/${ws}/issues/${issue.id}`, { token: member.token });
    expect(after).toMatchObject({ status: 200, body: { project_id: null } });
    const deleted = (await activityOf(t, ws)).filter((row) => row.action === "project.deleted");
    expect(deleted.map((row) => row.entity_id)).toContain(project.id);
  });

  it("stats count the project's issues in total and by status", async () => {
    const project = await createProject(t.api, ws, member.token);
    const empty = await t.api.get(path(`${project.id}/stats`), { token: member.token });
    expect(empty.body).toEqual({
      total: 0,
      by_status: { backlog: 0, todo: 0, in_progress: 0, in_review: 0, done: 0, blocked: 0, cancelled: 0 },
    });
    for (const status of ["todo", "todo", "done", "backlog"]) {
      await createIssue(t.api, ws, member.token, { project_id: project.id, status });
    }
    await createIssue(t.api, ws, member.token, { status: "todo" });
    const stats = await t.api.get(path(`${project.id}/stats`), { token: member.token });
    expect(stats.status).toBe(200);
    expect(stats.body.total).toBe(4);
    expect(stats.body.by_status).toMatchObject({ todo: 2, done: 1, backlog: 1, in_progress: 0 });
  });

  it("another workspace's project, unknown and malformed ids are 404 'Project not found'; non-member 403", async () => {
    const foreign = await createProject(t.api, otherWs, outsider.token);
    for (const id of [foreign.id, unknownId(), "nope", "%00"]) {
      for (const response of [
        await t.api.get(path(id), { token: owner.token }),
        await t.api.get(path(`${id}/stats`), { token: owner.token }),
        await t.api.patch(path(id), { title: "x" }, { token: owner.token }),
        await t.api.delete(path(id), { token: owner.token }),
      ]) {
        expect(response, id).toMatchObject({ status: 404, body: { detail: "Project not found" } });
      }
    }
    expect((await t.api.get(path(), { token: outsider.token })).status).toBe(403);
    expect((await t.api.post(path(), { title: "x" }, { token: outsider.token })).status).toBe(403);
    expect((await t.api.get(path(foreign.id), { token: outsider.token })).status).toBe(403);
    expect((await t.api.get(path())).status).toBe(401);
  });

  it("pages projects/ to the end with limit 1, 2, 50 and 200; 500 gives at most 200", async () => {
    const fresh = await createWorkspaceWithRoles(t.api);
    const created: string[] = [];
    for (let index = 0; index < 7; index++) {
      created.push((await createProject(t.api, fresh.workspaceId, fresh.member.token, { title: `P${index}` })).id);
    }
    for (const limit of [1, 2, 50, 200]) {
      const all = await pageThrough(t.api, `workspaces/${fresh.workspaceId}/projects/`, limit, fresh.member);
      expect(all.map((project) => project.id)).toEqual(created);
    }
    const clamped = await t.api.get(`workspaces/${fresh.workspaceId}/projects?limit=500`, {
      token: fresh.member.token,
    });
    expect(clamped.body).toHaveLength(7);
    for (const query of ["?limit=0", "?offset=-1", "?limit=x"]) {
      expect(
        (await t.api.get(`workspaces/${fresh.workspaceId}/projects/${query}`, { token: fresh.member.token })).status,
      ).toBe(422);
    }
  });

  it(`works the same on ${dialect} with and without the trailing slash`, async () => {
    const noSlash = await t.api.post(`workspaces/${ws}/projects`, { title: "No slash" }, { token: member.token });
    expect(noSlash.status).toBe(201);
    expect((await t.api.get(`workspaces/${ws}/projects`, { token: member.token })).status).toBe(200);
  });
});
