import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDialects } from "../helpers/databases.ts";
import {
  activityOf,
  createIssue,
  startWorkspaceFixture,
  unknownId,
  type WorkspaceFixture,
} from "../helpers/platform.ts";

describe.each(testDialects)("dependencies (%s)", (dialect) => {
  let { t, ws, owner, admin, member, outsider, otherWs } = {} as WorkspaceFixture;
  const path = (issueId: string, suffix = "") => `workspaces/${ws}/issues/${issueId}/dependencies/${suffix}`;

  beforeAll(async () => {
    ({ t, ws, owner, admin, member, outsider, otherWs } = await startWorkspaceFixture(dialect));
  });
  afterAll(() => t.close());

  it("POST → 201 (type defaults to blocks); GET lists both directions; logged as dependency.created", async () => {
    const a = await createIssue(t.api, ws, member.token);
    const b = await createIssue(t.api, ws, member.token);
    const c = await createIssue(t.api, ws, member.token);
    const ab = await t.api.post(path(a.id), { depends_on_issue_id: b.id }, { token: member.token });
    expect(ab).toMatchObject({
      status: 201,
      body: { workspace_id: ws, issue_id: a.id, depends_on_issue_id: b.id, type: "blocks" },
    });
    const cb = await t.api.post(
      `workspaces/${ws}/issues/${c.id}/dependencies`,
      { depends_on_issue_id: b.id, type: "related" },
      { token: member.token },
    );
    expect(cb).toMatchObject({ status: 201, body: { type: "related" } });
    const ofB = await t.api.get(path(b.id), { token: member.token });
    expect(ofB.body.map((dependency: any) => dependency.id)).toEqual([ab.body.id, cb.body.id]);
    const ofA = await t.api.get(`workspaces/${ws}/issues/${a.id}/dependencies`, { token: member.token });
    expect(ofA.body).toEqual([ab.body]);
    const logged = (await activityOf(t, ws)).filter((row) => row.action === "dependency.created");
    expect(logged.slice(0, 2)).toMatchObject([
      { entity_type: "dependency", entity_id: ab.body.id, issue_id: a.id, details: { depends_on_issue_id: b.id } },
      { entity_id: cb.body.id, issue_id: c.id },
    ]);
  });

  it("self-dependency 422, duplicate 409, bad type 422, missing target 422", async () => {
    const a = await createIssue(t.api, ws, member.token);
    const b = await createIssue(t.api, ws, member.token);
    expect((await t.api.post(path(a.id), { depends_on_issue_id: a.id }, { token: member.token })).status).toBe(422);
    expect(
      (await t.api.post(path(a.id), { depends_on_issue_id: b.id, type: "blocks" }, { token: member.token })).status,
    ).toBe(201);
    expect(await t.api.post(path(a.id), { depends_on_issue_id: b.id }, { token: member.token })).toMatchObject({
      status: 409,
      body: { detail: "This dependency already exists" },
    });
    expect(
      (await t.api.post(path(a.id), { depends_on_issue_id: b.id, type: "blocked_by" }, { token: member.token })).status,
    ).toBe(201);
    for (const body of [{}, { depends_on_issue_id: b.id, type: "duplicates" }, { depends_on_issue_id: 7 }]) {
      expect((await t.api.post(path(a.id), body, { token: member.token })).status, JSON.stringify(body)).toBe(422);
    }
    const stored = await t.db.selectFrom("issue_dependencies").select("id").where("issue_id", "=", a.id).execute();
    expect(stored).toHaveLength(2);
  });

  it("a target in another workspace, unknown or malformed is 404 'Issue not found'", async () => {
    const a = await createIssue(t.api, ws, member.token);
    const foreign = await createIssue(t.api, otherWs, outsider.token);
    for (const target of [foreign.id, unknownId(), "bad"]) {
      expect(await t.api.post(path(a.id), { depends_on_issue_id: target }, { token: member.token })).toMatchObject({
        status: 404,
        body: { detail: "Issue not found" },
      });
    }
    expect((await t.api.post(path(foreign.id), { depends_on_issue_id: a.id }, { token: member.token })).status).toBe(
      404,
    );
    expect((await t.api.get(path(foreign.id), { token: member.token })).status).toBe(404);
    expect((await t.api.get(path(a.id), { token: outsider.token })).status).toBe(403);
  });

  it("DELETE: admin, or the creator of both issues; 404 through an unrelated issue", async () => {
    const mineA = await createIssue(t.api, ws, member.token);
    const mineB = await createIssue(t.api, ws, member.token);
    const adminsIssue = await createIssue(t.api, ws, admin.token);
    const own = (await t.api.post(path(mineA.id), { depends_on_issue_id: mineB.id }, { token: member.token })).body;
    const mixed = (await t.api.post(path(mineA.id), { depends_on_issue_id: adminsIssue.id }, { token: member.token }))
      .body;

    // The member created mineA but not adminsIssue.
    expect((await t.api.delete(path(mineA.id, mixed.id), { token: member.token })).status).toBe(403);
    expect(await t.api.delete(path(adminsIssue.id, own.id), { token: member.token })).toMatchObject({
      status: 404,
      body: { detail: "Dependency not found" },
    });
    // Reachable from either end.
    expect((await t.api.delete(path(mineB.id, own.id), { token: member.token })).status).toBe(204);
    expect((await t.api.delete(path(mineB.id, own.id), { token: member.token })).status).toBe(404);
    expect((await t.api.delete(path(adminsIssue.id, mixed.id), { token: owner.token })).status).toBe(204);
    for (const id of [unknownId(), "bad"]) {
      expect((await t.api.delete(path(mineA.id, id), { token: owner.token })).status).toBe(404);
    }
    expect(await t.api.get(path(mineA.id), { token: member.token })).toMatchObject({ status: 200, body: [] });
    const deleted = (await activityOf(t, ws)).filter((row) => row.action === "dependency.deleted");
    expect(deleted.map((row) => [row.entity_id, row.issue_id])).toEqual([
      [own.id, mineA.id],
      [mixed.id, mineA.id],
    ]);
  });
});
