import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspaceWithRoles, registerUser, startTestApp, type TestApp } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";

describe.each(testDialects)("workspaces and members (%s)", (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(dialect);
  });
  afterAll(() => t.close());

  it("creates a workspace with a derived unique slug and makes the creator its owner", async () => {
    const { token, user } = await registerUser(t.api, "creator");
    const first = await t.api.post("workspaces/", { name: "Acme Labs" }, { token });
    const second = await t.api.post("workspaces", { name: "Acme  Labs!" }, { token });
    const third = await t.api.post("workspaces/", { name: "acme labs" }, { token });
    expect([first.status, second.status, third.status]).toEqual([201, 201, 201]);
    const base = first.body.slug;
    expect(base).toMatch(/^acme-labs/);
    expect(second.body.slug).toBe(`${base}-1`);
    expect(third.body.slug).toBe(`${base}-2`);
    expect(first.body).toMatchObject({ name: "Acme Labs", issue_prefix: "ISS", settings: {}, description: null });

    const members = await t.api.get(`workspaces/${first.body.id}/members`, { token });
    expect(members.body).toEqual([
      expect.objectContaining({
        user_id: user.id,
        role: "owner",
        user: { id: user.id, name: user.name, email: user.email },
      }),
    ]);
  });

  it("rejects a bad slug with 422 and makes a taken explicit slug unique with -1, -2", async () => {
    const { token } = await registerUser(t.api, "slugs");
    const bad = await t.api.post("workspaces/", { name: "X", slug: "Not Valid" }, { token });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(["body", "slug"]);
    const slug = `taken-${dialect}-${Date.now()}`;
    const slugs = [];
    for (const name of ["X", "Y", "Z"]) {
      const created = await t.api.post("workspaces/", { name, slug }, { token });
      expect(created.status).toBe(201);
      slugs.push(created.body.slug);
    }
    expect(slugs).toEqual([slug, `${slug}-1`, `${slug}-2`]);
  });

  it("lists only the caller's workspaces, with and without a trailing slash", async () => {
    const alice = await registerUser(t.api, "alice");
    const bob = await registerUser(t.api, "bob");
    const mine = await t.api.post("workspaces/", { name: "Alice's" }, { token: alice.token });
    await t.api.post("workspaces/", { name: "Bob's" }, { token: bob.token });
    for (const path of ["workspaces/", "workspaces"]) {
      const listed = await t.api.get(path, { token: alice.token });
      expect(listed.status).toBe(200);
      expect(listed.body.map((w: { id: string }) => w.id)).toEqual([mine.body.id]);
    }
  });

  it("PATCH is a merge patch: absent unchanged, null clears, null on a required field is 422", async () => {
    const { workspaceId, owner, admin, member } = await createWorkspaceWithRoles(t.api);
    const path = `workspaces/${workspaceId}`;
    const set = await t.api.patch(
      path,
      { description: "hello", settings: { a: 1 }, issue_prefix: "ENG" },
      { token: admin.token },
    );
    expect(set.body).toMatchObject({ name: "Team", description: "hello", settings: { a: 1 }, issue_prefix: "ENG" });
    const cleared = await t.api.patch(path, { description: null }, { token: owner.token });
    expect(cleared.body).toMatchObject({ name: "Team", description: null, issue_prefix: "ENG" });
    expect((await t.api.patch(path, { name: null }, { token: owner.token })).status).toBe(422);
    expect((await t.api.patch(path, { issue_prefix: "eng" }, { token: owner.token })).status).toBe(422);
    expect((await t.api.patch(path, { name: "Nope" }, { token: member.token })).status).toBe(403);
    expect((await t.api.get(path, { token: member.token })).body.name).toBe("Team");
  });

  it("only the owner deletes a workspace, and everything in it goes", async () => {
    const { workspaceId, owner, admin } = await createWorkspaceWithRoles(t.api);
    expect((await t.api.delete(`workspaces/${workspaceId}`, { token: admin.token })).status).toBe(403);
    expect((await t.api.delete(`workspaces/${workspaceId}`, { token: owner.token })).status).toBe(204);
    expect((await t.api.get(`workspaces/${workspaceId}`, { token: owner.token })).status).toBe(403);
    const leftovers = await t.db.selectFrom("members").select("id").where("workspace_id", "=", workspaceId).execute();
    expect(leftovers).toEqual([]);
  });

  it("non-members and unknown workspaces get 403 before validation", async () => {
    const { workspaceId, outsider } = await createWorkspaceWithRoles(t.api);
    const expected = { status: 403, body: { detail: "Not a member of this workspace or insufficient role" } };
    expect(await t.api.get(`workspaces/${workspaceId}`, { token: outsider.token })).toMatchObject(expected);
    expect(await t.api.get("workspaces/not-a-uuid", { token: outsider.token })).toMatchObject(expected);
    expect(await t.api.patch(`workspaces/${workspaceId}`, { name: 5 }, { token: outsider.token })).toMatchObject(
      expected,
    );
    expect(
      await t.api.request("PATCH", `/api/v1/workspaces/${workspaceId}`, undefined, {
        token: outsider.token,
        raw: "{bad",
      }),
    ).toMatchObject(expected);
  });

  it("adds members by user id or email; unknown user 404, duplicate 409, only owners grant admin", async () => {
    const { workspaceId, owner, admin, member } = await createWorkspaceWithRoles(t.api);
    const path = `workspaces/${workspaceId}/members`;
    const newcomer = await registerUser(t.api, "newcomer");
    const byEmail = await t.api.post(path, { email: newcomer.user.email.toUpperCase() }, { token: admin.token });
    expect(byEmail).toMatchObject({ status: 201, body: { user_id: newcomer.user.id, role: "member" } });
    expect((await t.api.post(path, { user_id: newcomer.user.id }, { token: admin.token })).status).toBe(409);
    expect((await t.api.post(path, { email: "ghost@example.com" }, { token: admin.token })).status).toBe(404);
    expect((await t.api.post(path, {}, { token: admin.token })).status).toBe(422);
    expect((await t.api.post(path, { user_id: newcomer.user.id, role: "boss" }, { token: admin.token })).status).toBe(
      422,
    );
    const another = await registerUser(t.api, "another");
    expect((await t.api.post(path, { user_id: another.user.id, role: "admin" }, { token: admin.token })).status).toBe(
      403,
    );
    expect((await t.api.post(path, { user_id: another.user.id }, { token: member.token })).status).toBe(403);
    expect((await t.api.post(path, { user_id: another.user.id, role: "admin" }, { token: owner.token })).status).toBe(
      201,
    );
  });

  it("role changes: nobody changes their own role; only owners touch admin/owner roles", async () => {
    const { workspaceId, owner, admin, member } = await createWorkspaceWithRoles(t.api);
    const path = (userId: string) => `workspaces/${workspaceId}/members/${userId}`;
    expect((await t.api.patch(path(admin.user.id), { role: "owner" }, { token: admin.token })).status).toBe(403);
    expect((await t.api.patch(path(owner.user.id), { role: "member" }, { token: admin.token })).status).toBe(403);
    expect((await t.api.patch(path(member.user.id), { role: "admin" }, { token: admin.token })).status).toBe(403);
    expect((await t.api.patch(path(member.user.id), { role: "member" }, { token: member.token })).status).toBe(403);
    const promoted = await t.api.patch(path(member.user.id), { role: "admin" }, { token: owner.token });
    expect(promoted).toMatchObject({ status: 200, body: { role: "admin" } });
    expect((await t.api.patch(path("missing"), { role: "member" }, { token: owner.token })).status).toBe(404);
  });

  it("a member may leave; an admin removes members; the last owner can neither leave nor be removed", async () => {
    const { workspaceId, owner, admin, member } = await createWorkspaceWithRoles(t.api);
    const path = (userId: string) => `workspaces/${workspaceId}/members/${userId}`;
    expect((await t.api.delete(path(admin.user.id), { token: member.token })).status).toBe(403);
    expect((await t.api.delete(path(owner.user.id), { token: admin.token })).status).toBe(403);
    expect(await t.api.delete(path(owner.user.id), { token: owner.token })).toMatchObject({
      status: 409,
      body: { detail: "The last owner cannot leave or be removed" },
    });
    expect((await t.api.delete(path(member.user.id), { token: member.token })).status).toBe(204);
    expect((await t.api.get(`workspaces/${workspaceId}`, { token: member.token })).status).toBe(403);
    const other = await registerUser(t.api, "other");
    await t.api.post(`workspaces/${workspaceId}/members`, { user_id: other.user.id }, { token: owner.token });
    expect((await t.api.delete(path(other.user.id), { token: admin.token })).status).toBe(204);
  });

  it("every member change is in the activity log", async () => {
    const { workspaceId, owner, member } = await createWorkspaceWithRoles(t.api);
    await t.api.patch(`workspaces/${workspaceId}/members/${member.user.id}`, { role: "admin" }, { token: owner.token });
    const rows = await t.db
      .selectFrom("activity")
      .select(["action", "actor_id", "details"])
      .where("workspace_id", "=", workspaceId)
      .orderBy("created_at")
      .execute();
    expect(rows.map((row) => row.action)).toEqual([
      "workspace.created",
      "member.added",
      "member.added",
      "member.updated",
    ]);
    expect(JSON.parse(rows[3]!.details)).toEqual({
      user_id: member.user.id,
      user_name: "member",
      changes: { role: { from: "member", to: "admin" } },
    });
    expect(rows.every((row) => row.actor_id === owner.user.id)).toBe(true);
  });
});
