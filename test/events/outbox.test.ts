import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendEvent } from "../../src/events/append.ts";
import { createWorkspaceWithRoles, registerUser, startTestApp, type TestApp } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";
import { activityOf, createIssue, createLabel, createProject } from "../helpers/platform.ts";

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/;

async function allEvents(t: TestApp, workspaceId: string, token: string, query = ""): Promise<any[]> {
  const events: any[] = [];
  for (let afterSeq = 0; ; ) {
    const page = await t.api.get(`workspaces/${workspaceId}/events?after_seq=${afterSeq}&limit=7${query}`, { token });
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    events.push(...page.body);
    if (page.body.length < 7) return events;
    afterSeq = page.body.at(-1).seq;
  }
}

describe.each(testDialects)("the outbox (%s)", (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { WEBHOOK_ALLOW_PRIVATE: "true" } });
  });
  afterAll(() => t.close());

  it("every kind of change writes its event with the activity entry's type, entity, actor and details", async () => {
    const ws = await createWorkspaceWithRoles(t.api);
    const base = `workspaces/${ws.workspaceId}`;
    const owner = { token: ws.owner.token };
    const admin = { token: ws.admin.token };
    const member = { token: ws.member.token };
    await t.api.patch(base, { description: "Ours" }, owner);
    const project = await createProject(t.api, ws.workspaceId, ws.member.token);
    await t.api.patch(`${base}/projects/${project.id}`, { status: "in_progress" }, member);
    const issue = await createIssue(t.api, ws.workspaceId, ws.member.token, { project_id: project.id });
    const other = await createIssue(t.api, ws.workspaceId, ws.member.token);
    await t.api.patch(`${base}/issues/${issue.id}`, { status: "todo", priority: "high" }, member);
    const comment = (await t.api.post(`${base}/issues/${issue.id}/comments`, { content: "Looks good" }, member)).body;
    await t.api.patch(`${base}/issues/${issue.id}/comments/${comment.id}`, { content: "Looks great" }, member);
    await t.api.delete(`${base}/issues/${issue.id}/comments/${comment.id}`, member);
    const label = await createLabel(t.api, ws.workspaceId, ws.member.token, "bug");
    await t.api.patch(`${base}/labels/${label.id}`, { color: "#FF0000" }, admin);
    await t.api.post(`${base}/issues/${issue.id}/labels/${label.id}`, undefined, member);
    await t.api.delete(`${base}/issues/${issue.id}/labels/${label.id}`, member);
    await t.api.delete(`${base}/labels/${label.id}`, admin);
    const dependency = (
      await t.api.post(`${base}/issues/${issue.id}/dependencies/`, { depends_on_issue_id: other.id }, member)
    ).body;
    await t.api.delete(`${base}/issues/${issue.id}/dependencies/${dependency.id}`, admin);
    const agent = (await t.api.post(`${base}/agents/`, { name: "Bot" }, member)).body;
    await t.api.patch(`${base}/agents/${agent.id}`, { description: "Helps" }, member);
    await t.api.delete(`${base}/agents/${agent.id}`, member);
    const key = (await t.api.post(`${base}/api-keys`, { name: "CI" }, admin)).body;
    await t.api.delete(`${base}/api-keys/${key.id}`, admin);
    const hook = (await t.api.post(`${base}/webhooks`, { url: "http://127.0.0.1:9/hook" }, admin)).body;
    await t.api.patch(`${base}/webhooks/${hook.id}`, { types: ["issue.*"] }, admin);
    await t.api.post(`${base}/webhooks/${hook.id}/rotate-secret`, undefined, admin);
    await t.api.delete(`${base}/webhooks/${hook.id}`, admin);
    await t.api.patch(`${base}/members/${ws.member.user.id}`, { role: "admin" }, owner);
    await t.api.delete(`${base}/issues/${issue.id}`, member);
    await t.api.delete(`${base}/projects/${project.id}`, admin);
    await t.api.delete(`${base}/members/${ws.member.user.id}`, member);
    await t.api.delete(`${base}/members/${ws.admin.user.id}`, owner);

    const events = await allEvents(t, ws.workspaceId, ws.owner.token);
    const activity = await activityOf(t, ws.workspaceId);
    expect(events.map((event) => event.seq)).toEqual(activity.map((_, index) => index + 1));
    expect(
      events.map(({ type, entity_type, entity_id, issue_id, actor_type, actor_id, data, workspace_id }) => ({
        type,
        entity_type,
        entity_id,
        issue_id,
        actor_type,
        actor_id,
        data,
        workspace_id,
      })),
    ).toEqual(
      activity.map((row) => ({
        type: row.action,
        entity_type: row.entity_type,
        entity_id: row.entity_id,
        issue_id: row.issue_id,
        actor_type: row.actor_type,
        actor_id: row.actor_id,
        data: row.details,
        workspace_id: ws.workspaceId,
      })),
    );
    expect(new Set(events.map((event) => event.type))).toEqual(
      new Set([
        "workspace.created",
        "member.added",
        "workspace.updated",
        "project.created",
        "project.updated",
        "issue.created",
        "issue.updated",
        "comment.created",
        "comment.updated",
        "comment.deleted",
        "label.created",
        "label.updated",
        "label.linked",
        "label.unlinked",
        "label.deleted",
        "dependency.created",
        "dependency.deleted",
        "agent.created",
        "agent.updated",
        "agent.deleted",
        "api_key.created",
        "api_key.revoked",
        "webhook.created",
        "webhook.updated",
        "webhook.secret_rotated",
        "webhook.deleted",
        "member.updated",
        "issue.deleted",
        "project.deleted",
        "member.left",
        "member.removed",
      ]),
    );
    const updated = events.find((event) => event.type === "issue.updated");
    expect(updated).toEqual({
      id: expect.any(String),
      seq: expect.any(Number),
      workspace_id: ws.workspaceId,
      type: "issue.updated",
      entity_type: "issue",
      entity_id: issue.id,
      issue_id: issue.id,
      actor_type: "member",
      actor_id: ws.member.user.id,
      data: {
        identifier: issue.identifier,
        changes: { status: { from: "backlog", to: "todo" }, priority: { from: "none", to: "high" } },
      },
      created_at: expect.stringMatching(TIMESTAMP),
    });
    // Secrets never reach the outbox: not the API key, not the webhook's signing secret.
    const outbox = JSON.stringify(events);
    expect(outbox).not.toContain(key.key);
    expect(outbox).not.toContain(hook.secret);
  });

  it("the list pages by after_seq or offset, filters by types (exact and entity.*), and refuses bad input", async () => {
    const { token } = await registerUser(t.api, "lister");
    const ws = (await t.api.post("workspaces/", { name: "Lists" }, { token })).body.id;
    for (let index = 0; index < 4; index++) {
      const issue = await createIssue(t.api, ws, token, { title: `Issue ${index}` });
      await t.api.post(`workspaces/${ws}/issues/${issue.id}/comments`, { content: `On ${index}` }, { token });
    }
    const all = await allEvents(t, ws, token);
    expect(all.map((event) => event.type)).toEqual([
      "workspace.created",
      ...Array.from({ length: 4 }, () => ["issue.created", "comment.created"]).flat(),
    ]);
    const byOffset = await t.api.get(`workspaces/${ws}/events?limit=3&offset=3`, { token });
    expect(byOffset.body.map((event: any) => event.seq)).toEqual([4, 5, 6]);
    const comments = await allEvents(t, ws, token, "&types=comment.created");
    expect(comments.map((event) => event.seq)).toEqual([3, 5, 7, 9]);
    const issuesAndWorkspace = await allEvents(t, ws, token, "&types=issue.*,workspace.*");
    expect(issuesAndWorkspace.map((event) => event.seq)).toEqual([1, 2, 4, 6, 8]);
    const repeated = await t.api.get(`workspaces/${ws}/events?types=issue.created&types=comment.created&after_seq=7`, {
      token,
    });
    expect(repeated.body.map((event: any) => event.seq)).toEqual([8, 9]);

    for (const query of ["after_seq=-1", "after_seq=x", "types=Issue", "types=issue", "types=*", "limit=0"]) {
      const response = await t.api.get(`workspaces/${ws}/events?${query}`, { token });
      expect(response.status, query).toBe(422);
      expect(response.body.detail[0].loc[0]).toBe("query");
    }
    const outsider = await registerUser(t.api, "outsider");
    expect((await t.api.get(`workspaces/${ws}/events?after_seq=x`, { token: outsider.token })).status).toBe(403);
    expect((await t.api.get(`workspaces/${ws}/events?after_seq=x`)).status).toBe(401);
  });

  it("a change that rolls back leaves no event and no hole in the numbering", async () => {
    const { token, user } = await registerUser(t.api, "rollback");
    const ws = (await t.api.post("workspaces/", { name: "Rollback" }, { token })).body.id;
    await expect(
      t.db.transaction().execute(async (trx) => {
        await appendEvent(trx, {
          workspaceId: ws,
          type: "task.queued",
          entityType: "task",
          entityId: null,
          actor: { type: "member", id: user.id },
          data: { never: "seen" },
        });
        throw new Error("the change failed after its event was written");
      }),
    ).rejects.toThrow("the change failed");
    // A unique-name conflict fails inside the transaction that would have logged it.
    await createLabel(t.api, ws, token, "dup");
    expect((await t.api.post(`workspaces/${ws}/labels`, { name: "dup" }, { token })).status).toBe(409);
    const issue = await createIssue(t.api, ws, token);

    const events = await allEvents(t, ws, token);
    expect(events.map((event) => [event.seq, event.type])).toEqual([
      [1, "workspace.created"],
      [2, "label.created"],
      [3, "issue.created"],
    ]);
    expect(events[2].entity_id).toBe(issue.id);
  });

  it("appendEvent is the way for other features: task, run and approval events, system actor, own transaction", async () => {
    const { token, user } = await registerUser(t.api, "tasks");
    const ws = (await t.api.post("workspaces/", { name: "Tasks" }, { token })).body.id;
    const issue = await createIssue(t.api, ws, token);
    await t.db.transaction().execute(async (trx) => {
      await appendEvent(trx, {
        workspaceId: ws,
        type: "task.queued",
        entityType: "task",
        entityId: "6f1d7a62-5a4c-4a55-9d0e-8e1c3b7f1a01",
        issueId: issue.id,
        actor: { type: "member", id: user.id },
        data: { trigger: "manual" },
      });
      await appendEvent(trx, {
        workspaceId: ws,
        type: "run.started",
        entityType: "run",
        entityId: null,
        issueId: issue.id,
        actor: null,
      });
    });
    // Without a transaction it opens its own.
    await appendEvent(t.db, {
      workspaceId: ws,
      type: "approval.requested",
      entityType: "approval",
      entityId: null,
      actor: { type: "agent", id: "0b8f7d5e-1111-4222-8333-944455556666" },
    });
    const listed = await allEvents(t, ws, token, "&types=task.*,run.started,approval.requested");
    expect(listed.map((event) => [event.seq, event.type])).toEqual([
      [3, "task.queued"],
      [4, "run.started"],
      [5, "approval.requested"],
    ]);
    expect(listed[0]).toMatchObject({
      entity_id: "6f1d7a62-5a4c-4a55-9d0e-8e1c3b7f1a01",
      issue_id: issue.id,
      actor_type: "member",
      actor_id: user.id,
      data: { trigger: "manual" },
    });
    expect(listed[1]).toMatchObject({ actor_type: "system", actor_id: null, data: {} });
    expect(listed[2]).toMatchObject({ actor_type: "agent", data: {} });
  });

  it("numbers stay gapless and unique with 50 writers at once", async () => {
    const { token } = await registerUser(t.api, "busy");
    const ws = (await t.api.post("workspaces/", { name: "Busy" }, { token })).body.id;
    const issue = await createIssue(t.api, ws, token);
    const writes = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        index % 2 === 0
          ? t.api.post(`workspaces/${ws}/issues/`, { title: `Parallel ${index}` }, { token })
          : t.api.post(`workspaces/${ws}/issues/${issue.id}/comments`, { content: `Parallel ${index}` }, { token }),
      ),
    );
    expect(writes.map((write) => write.status)).toEqual(Array(50).fill(201));
    const events = await allEvents(t, ws, token);
    expect(events.map((event) => event.seq)).toEqual(Array.from({ length: 52 }, (_, index) => index + 1));
    const created = new Set(writes.map((write) => write.body.id));
    expect(new Set(events.slice(2).map((event) => event.entity_id))).toEqual(created);
    // Commit order is seq order: the outbox's timestamps (taken inside each transaction) never go backwards.
    const times = events.map((event) => event.created_at);
    expect([...times].sort()).toEqual(times);
  });
});
