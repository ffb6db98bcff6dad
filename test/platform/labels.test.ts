import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspaceWithRoles } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";
import { pageThrough } from "../helpers/page-through.ts";
import {
  activityOf,
  createIssue,
  createLabel,
  startWorkspaceFixture,
  unknownId,
  type WorkspaceFixture,
} from "../helpers/platform.ts";

describe.each(testDialects)("labels (%s)", (dialect) => {
  let { t, ws, owner, admin, member, outsider, otherWs } = {} as WorkspaceFixture;
  const path = (suffix = "") => `workspaces/${ws}/labels${suffix}`;

  beforeAll(async () => {
    ({ t, ws, owner, admin, member, outsider, otherWs } = await startWorkspaceFixture(dialect));
  });
  afterAll(() => t.close());

  it("any member creates a label (default colour #6B7280), logged as label.created", async () => {
    const created = await t.api.post(path(), { name: "bug" }, { token: member.token });
    expect(created).toMatchObject({ status: 201, body: { workspace_id: ws, name: "bug", color: "#6B7280" } });
    const coloured = await t.api.post(path("/"), { name: "feature", color: "#00ff00" }, { token: member.token });
    expect(coloured).toMatchObject({ status: 201, body: { color: "#00ff00" } });
    const logged = (await activityOf(t, ws)).filter((row) => row.action === "label.created");
    expect(logged.map((row) => row.entity_id)).toEqual([created.body.id, coloured.body.id]);
  });

  it("names are unique per workspace (409), not across workspaces", async () => {
    await createLabel(t.api, ws, member.token, "unique-one");
    expect(await t.api.post(path(), { name: "unique-one" }, { token: admin.token })).toMatchObject({
      status: 409,
      body: { detail: "A label with this name already exists in this workspace" },
    });
    expect(
      (await t.api.post(`workspaces/${otherWs}/labels`, { name: "unique-one" }, { token: outsider.token })).status,
    ).toBe(201);
    const second = await createLabel(t.api, ws, member.token, "unique-two");
    expect((await t.api.patch(path(`/${second.id}`), { name: "unique-one" }, { token: admin.token })).status).toBe(409);
  });

  it("refuses bad names and colours with 422", async () => {
    for (const body of [{}, { name: "" }, { name: 3 }, { name: "x", color: "red" }, { name: "x", color: "#12345" }]) {
      expect((await t.api.post(path(), body, { token: member.token })).status, JSON.stringify(body)).toBe(422);
    }
  });

  it("PATCH and DELETE are admin-only (403 for members, before validation)", async () => {
    const label = await createLabel(t.api, ws, member.token, "rename-me");
    expect((await t.api.patch(path(`/${label.id}`), { name: "x" }, { token: member.token })).status).toBe(403);
    expect((await t.api.patch(path(`/${label.id}`), { color: "bad" }, { token: member.token })).status).toBe(403);
    expect((await t.api.delete(path(`/${label.id}`), { token: member.token })).status).toBe(403);
    const renamed = await t.api.patch(
      path(`/${label.id}`),
      { name: "renamed", color: "#ABCDEF" },
      { token: admin.token },
    );
    expect(renamed).toMatchObject({ status: 200, body: { id: label.id, name: "renamed", color: "#ABCDEF" } });
    expect((await t.api.patch(path(`/${label.id}`), { name: null }, { token: admin.token })).status).toBe(422);
    const updated = (await activityOf(t, ws)).find((row) => row.action === "label.updated");
    expect(updated?.details).toEqual({
      changes: { name: { from: "rename-me", to: "renamed" }, color: { from: "#6B7280", to: "#ABCDEF" } },
    });
  });

  it("link (204, idempotent) and unlink (204); list an issue's labels; activity with issue_id", async () => {
    const issue = await createIssue(t.api, ws, member.token);
    const a = await createLabel(t.api, ws, member.token, "a-label");
    const b = await createLabel(t.api, ws, member.token, "b-label");
    const link = (label: string) =>
      t.api.post(`workspaces/${ws}/issues/${issue.id}/labels/${label}`, undefined, { token: member.token });
    expect((await link(b.id)).status).toBe(204);
    expect((await link(a.id)).status).toBe(204);
    expect((await link(a.id)).status).toBe(204);
    const listed = await t.api.get(`workspaces/${ws}/issues/${issue.id}/labels`, { token: member.token });
    expect(listed.body.map((label: any) => label.name)).toEqual(["a-label", "b-label"]);

    const unlink = (label: string) =>
      t.api.delete(`workspaces/${ws}/issues/${issue.id}/labels/${label}`, { token: member.token });
    expect((await unlink(a.id)).status).toBe(204);
    expect((await unlink(a.id)).status).toBe(204);
    const after = await t.api.get(`workspaces/${ws}/issues/${issue.id}/labels/`, { token: member.token });
    expect(after.body.map((label: any) => label.id)).toEqual([b.id]);

    const events = (await activityOf(t, ws)).filter((row) => row.issue_id === issue.id && row.entity_type === "label");
    expect(events.map((row) => [row.action, row.entity_id])).toEqual([
      ["label.linked", b.id],
      ["label.linked", a.id],
      ["label.unlinked", a.id],
    ]);
  });

  it("DELETE unlinks the label from every issue and logs label.deleted", async () => {
    const label = await createLabel(t.api, ws, member.token, "short-lived");
    const issues = [await createIssue(t.api, ws, member.token), await createIssue(t.api, ws, member.token)];
    for (const issue of issues) {
      await t.api.post(`workspaces/${ws}/issues/${issue.id}/labels/${label.id}`, undefined, { token: member.token });
    }
    expect((await t.api.delete(path(`/${label.id}`), { token: owner.token })).status).toBe(204);
    expect((await t.api.get(path(`/${label.id}`), { token: owner.token })).status).toBe(404);
    for (const issue of issues) {
      expect((await t.api.get(`workspaces/${ws}/issues/${issue.id}/labels`, { token: member.token })).body).toEqual([]);
    }
    const deleted = (await activityOf(t, ws)).find((row) => row.action === "label.deleted");
    expect(deleted).toMatchObject({ entity_id: label.id, details: { unlinked_issues: 2 } });
  });

  it("another workspace's label or issue is 404 (IDOR), also when linking", async () => {
    const foreignLabel = await createLabel(t.api, otherWs, outsider.token, "theirs");
    const foreignIssue = await createIssue(t.api, otherWs, outsider.token);
    const mine = await createIssue(t.api, ws, member.token);
    const myLabel = await createLabel(t.api, ws, member.token, "ours");
    for (const id of [foreignLabel.id, unknownId(), "bad"]) {
      expect(await t.api.get(path(`/${id}`), { token: owner.token })).toMatchObject({
        status: 404,
        body: { detail: "Label not found" },
      });
      expect((await t.api.patch(path(`/${id}`), { name: "x" }, { token: owner.token })).status).toBe(404);
      expect((await t.api.delete(path(`/${id}`), { token: owner.token })).status).toBe(404);
      expect(
        await t.api.post(`workspaces/${ws}/issues/${mine.id}/labels/${id}`, undefined, { token: owner.token }),
      ).toMatchObject({ status: 404, body: { detail: "Label not found" } });
      expect(
        (await t.api.delete(`workspaces/${ws}/issues/${mine.id}/labels/${id}`, { token: owner.token })).status,
      ).toBe(404);
    }
    expect(
      await t.api.post(`workspaces/${ws}/issues/${foreignIssue.id}/labels/${myLabel.id}`, undefined, {
        token: owner.token,
      }),
    ).toMatchObject({ status: 404, body: { detail: "Issue not found" } });
    expect((await t.api.get(`workspaces/${ws}/issues/${foreignIssue.id}/labels`, { token: owner.token })).status).toBe(
      404,
    );
    expect((await t.api.get(path(), { token: outsider.token })).status).toBe(403);
  });

  it("lists labels by name and pages to the end", async () => {
    const fresh = await createWorkspaceWithRoles(t.api);
    for (const name of ["delta", "alpha", "charlie", "bravo"]) {
      await createLabel(t.api, fresh.workspaceId, fresh.member.token, name);
    }
    for (const limit of [1, 2, 50, 200]) {
      const all = await pageThrough(t.api, `workspaces/${fresh.workspaceId}/labels`, limit, fresh.member);
      expect(all.map((label) => label.name)).toEqual(["alpha", "bravo", "charlie", "delta"]);
    }
  });
});
