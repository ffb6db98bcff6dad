import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspaceWithRoles } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";
import { pageThrough } from "../helpers/page-through.ts";
import {
  activityOf,
  createIssue,
  startWorkspaceFixture,
  unknownId,
  type WorkspaceFixture,
} from "../helpers/platform.ts";

describe.each(testDialects)("comments (%s)", (dialect) => {
  let { t, ws, owner, admin, member, outsider, otherWs } = {} as WorkspaceFixture;
  let issue: any;
  const path = (suffix = "") => `workspaces/${ws}/issues/${issue.id}/comments${suffix}`;

  beforeAll(async () => {
    ({ t, ws, owner, admin, member, outsider, otherWs } = await startWorkspaceFixture(dialect));
    issue = await createIssue(t.api, ws, owner.token);
  });
  afterAll(() => t.close());

  it("POST → 201 with the author; GET lists oldest first; logged as comment.created on the issue", async () => {
    const first = await t.api.post(path(), { content: "First" }, { token: member.token });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      workspace_id: ws,
      issue_id: issue.id,
      parent_id: null,
      author_type: "member",
      author_id: member.user.id,
      content: "First",
      type: "comment",
    });
    const reply = await t.api.post(path(), { content: "Reply", parent_id: first.body.id }, { token: admin.token });
    expect(reply).toMatchObject({ status: 201, body: { parent_id: first.body.id } });
    const listed = await t.api.get(path(), { token: owner.token });
    expect(listed.body.slice(0, 2).map((comment: any) => comment.content)).toEqual(["First", "Reply"]);
    const logged = (await activityOf(t, ws)).filter((row) => row.action === "comment.created");
    expect(logged.slice(0, 2)).toMatchObject([
      { entity_type: "comment", entity_id: first.body.id, issue_id: issue.id, actor_id: member.user.id },
      { entity_id: reply.body.id, issue_id: issue.id, actor_id: admin.user.id },
    ]);
  });

  it("a parent must be a comment of the same issue (404 otherwise)", async () => {
    const otherIssue = await createIssue(t.api, ws, owner.token);
    const elsewhere = await t.api.post(
      `workspaces/${ws}/issues/${otherIssue.id}/comments`,
      { content: "on another issue" },
      { token: member.token },
    );
    for (const parent_id of [elsewhere.body.id, unknownId(), "bad-id"]) {
      expect(await t.api.post(path(), { content: "x", parent_id }, { token: member.token })).toMatchObject({
        status: 404,
        body: { detail: "Comment not found" },
      });
    }
  });

  it("refuses bad input with 422", async () => {
    for (const body of [
      {},
      { content: "" },
      { content: "   " },
      { content: 5 },
      { content: null },
      { content: "\u0000" },
    ]) {
      expect((await t.api.post(path(), body, { token: member.token })).status, JSON.stringify(body)).toBe(422);
    }
  });

  it("PATCH and DELETE by the author or an admin; others 403", async () => {
    const comment = (await t.api.post(path(), { content: "Mine" }, { token: member.token })).body;
    const other = (await createWorkspaceWithRoles(t.api)).member;
    expect((await t.api.patch(path(`/${comment.id}`), { content: "x" }, { token: other.token })).status).toBe(403);
    const colleague = await t.api.post(`workspaces/${ws}/members`, { user_id: other.user.id }, { token: owner.token });
    expect(colleague.status).toBe(201);
    expect(await t.api.patch(path(`/${comment.id}`), { content: "hijack" }, { token: other.token })).toMatchObject({
      status: 403,
    });
    expect((await t.api.delete(path(`/${comment.id}`), { token: other.token })).status).toBe(403);

    const edited = await t.api.patch(path(`/${comment.id}`), { content: "Edited" }, { token: member.token });
    expect(edited).toMatchObject({ status: 200, body: { content: "Edited", author_id: member.user.id } });
    expect(edited.body.updated_at > comment.updated_at).toBe(true);
    expect((await t.api.patch(path(`/${comment.id}`), { content: null }, { token: member.token })).status).toBe(422);
    expect((await t.api.patch(path(`/${comment.id}`), { content: "By admin" }, { token: admin.token })).status).toBe(
      200,
    );

    const reply = (await t.api.post(path(), { content: "reply", parent_id: comment.id }, { token: other.token })).body;
    expect((await t.api.delete(path(`/${comment.id}`), { token: admin.token })).status).toBe(204);
    const remaining = (await t.api.get(path("?limit=200"), { token: member.token })).body.map((c: any) => c.id);
    expect(remaining).not.toContain(comment.id);
    expect(remaining).not.toContain(reply.id);

    const actions = (await activityOf(t, ws)).filter((row) => row.entity_id === comment.id).map((row) => row.action);
    expect(actions).toEqual(["comment.created", "comment.updated", "comment.updated", "comment.deleted"]);
    const firstEdit = (await activityOf(t, ws)).find((row) => row.action === "comment.updated");
    expect(firstEdit?.details).toEqual({ changes: { content: { from: "Mine", to: "Edited" } } });
  });

  it("another workspace's issue or comment, and malformed ids, are 404", async () => {
    const foreignIssue = await createIssue(t.api, otherWs, outsider.token);
    const foreignComment = (
      await t.api.post(
        `workspaces/${otherWs}/issues/${foreignIssue.id}/comments`,
        { content: "theirs" },
        { token: outsider.token },
      )
    ).body;
    const viaForeignIssue = `workspaces/${ws}/issues/${foreignIssue.id}/comments`;
    expect(await t.api.get(viaForeignIssue, { token: owner.token })).toMatchObject({
      status: 404,
      body: { detail: "Issue not found" },
    });
    expect((await t.api.post(viaForeignIssue, { content: "x" }, { token: owner.token })).status).toBe(404);
    for (const id of [foreignComment.id, unknownId(), "nope"]) {
      expect(await t.api.patch(path(`/${id}`), { content: "x" }, { token: owner.token })).toMatchObject({
        status: 404,
        body: { detail: "Comment not found" },
      });
      expect((await t.api.delete(path(`/${id}`), { token: owner.token })).status).toBe(404);
    }
    expect((await t.api.get(path(), { token: outsider.token })).status).toBe(403);
  });

  it("pages comments to the end", async () => {
    const fresh = await createIssue(t.api, ws, member.token);
    const base = `workspaces/${ws}/issues/${fresh.id}/comments`;
    const ids: string[] = [];
    for (let index = 0; index < 5; index++) {
      ids.push((await t.api.post(base, { content: `c${index}` }, { token: member.token })).body.id);
    }
    for (const limit of [1, 2, 50]) {
      expect((await pageThrough(t.api, base, limit, member)).map((comment) => comment.id)).toEqual(ids);
    }
  });
});
