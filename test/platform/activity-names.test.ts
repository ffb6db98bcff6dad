// Activity names what it mentions: "assigned Ada", not "assignee_id 17815628-…". Each entry that mentions another thing
// by id carries its name beside the id, as it was when the entry was written, so the log reads the same after a rename
// or a deletion.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspaceWithRoles, startTestApp, type TestApp, type WorkspaceWithRoles } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";
import { createIssue, createLabel, createProject } from "../helpers/platform.ts";

interface Entry {
  action: string;
  entity_id: string | null;
  details: Record<string, any>;
}

describe.each(testDialects)("activity names what it mentions (%s)", (dialect) => {
  let t: TestApp;
  let ws: WorkspaceWithRoles;
  let workspaceId: string;
  const as = (user: { token: string }) => ({ token: user.token });

  beforeAll(async () => {
    t = await startTestApp(dialect);
    ws = await createWorkspaceWithRoles(t.api);
    workspaceId = ws.workspaceId;
  });
  afterAll(() => t.close());

  /** The issue's activity, or the workspace's, through the API, oldest first. */
  const issueFeed = async (issueId: string): Promise<Entry[]> =>
    (await t.api.get(`workspaces/${workspaceId}/issues/${issueId}/activity?limit=200`, as(ws.owner))).body.reverse();
  const workspaceFeed = async (): Promise<Entry[]> =>
    (await t.api.get(`workspaces/${workspaceId}/activity?limit=200`, as(ws.owner))).body.reverse();
  const patchIssue = async (issueId: string, body: Record<string, unknown>) => {
    const response = await t.api.patch(`workspaces/${workspaceId}/issues/${issueId}`, body, as(ws.member));
    expect(response.status, JSON.stringify(response.body)).toBe(200);
  };

  it("an issue's changes name its assignee (member or agent), project and parent, beside their ids", async () => {
    const agent = (await t.api.post(`workspaces/${workspaceId}/agents/`, { name: "Reviewer" }, as(ws.admin))).body;
    const project = await createProject(t.api, workspaceId, ws.member.token, { title: "Launch" });
    const parent = await createIssue(t.api, workspaceId, ws.member.token, { title: "Ship the beta" });
    const issue = await createIssue(t.api, workspaceId, ws.member.token, { title: "Write the notes" });

    await patchIssue(issue.id, { assignee_type: "member", assignee_id: ws.admin.user.id });
    await patchIssue(issue.id, { assignee_type: "agent", assignee_id: agent.id });
    await patchIssue(issue.id, { project_id: project.id, parent_issue_id: parent.id });
    // Renamed and deleted afterwards: the entries keep the names they were written with.
    await t.api.patch(`workspaces/${workspaceId}/projects/${project.id}`, { title: "Launch v2" }, as(ws.member));
    await patchIssue(issue.id, { assignee_id: null, project_id: null, parent_issue_id: null, priority: "high" });
    expect((await t.api.delete(`workspaces/${workspaceId}/agents/${agent.id}`, as(ws.admin))).status).toBe(204);

    const updates = (await issueFeed(issue.id)).filter((entry) => entry.action === "issue.updated");
    expect(updates.map((entry) => entry.details.changes)).toEqual([
      {
        assignee_type: { from: null, to: "member" },
        assignee_id: { from: null, to: ws.admin.user.id, from_name: null, to_name: "admin" },
      },
      {
        assignee_type: { from: "member", to: "agent" },
        assignee_id: { from: ws.admin.user.id, to: agent.id, from_name: "admin", to_name: "Reviewer" },
      },
      {
        project_id: { from: null, to: project.id, from_name: null, to_name: "Launch" },
        parent_issue_id: {
          from: null,
          to: parent.id,
          from_name: null,
          to_name: `${parent.identifier} Ship the beta`,
        },
      },
      {
        assignee_type: { from: "agent", to: null },
        assignee_id: { from: agent.id, to: null, from_name: "Reviewer", to_name: null },
        project_id: { from: project.id, to: null, from_name: "Launch v2", to_name: null },
        parent_issue_id: {
          from: parent.id,
          to: null,
          from_name: `${parent.identifier} Ship the beta`,
          to_name: null,
        },
        priority: { from: "none", to: "high" },
      },
    ]);
    // The same names reach the event stream (and so webhooks): the entry and its event are one.
    const events = (await t.api.get(`workspaces/${workspaceId}/events?types=issue.updated&limit=200`, as(ws.owner)))
      .body;
    const mine = events.filter((event: { entity_id: string }) => event.entity_id === issue.id);
    expect(mine.map((event: { data: Entry["details"] }) => event.data.changes)).toEqual(
      updates.map((entry) => entry.details.changes),
    );
  });

  it("projects name their lead, agents their owner, dependencies the issue, members the person", async () => {
    const project = await createProject(t.api, workspaceId, ws.member.token, { title: "Roadmap" });
    await t.api.patch(
      `workspaces/${workspaceId}/projects/${project.id}`,
      { lead_type: "member", lead_id: ws.member.user.id },
      as(ws.member),
    );
    const agent = (await t.api.post(`workspaces/${workspaceId}/agents/`, { name: "Scribe" }, as(ws.member))).body;
    await t.api.patch(
      `workspaces/${workspaceId}/agents/${agent.id}`,
      { owner_type: "member", owner_id: ws.admin.user.id },
      as(ws.member),
    );
    const blocker = await createIssue(t.api, workspaceId, ws.member.token, { title: "Fix the build" });
    const blocked = await createIssue(t.api, workspaceId, ws.member.token, { title: "Release" });
    const dependency = (
      await t.api.post(
        `workspaces/${workspaceId}/issues/${blocked.id}/dependencies/`,
        { depends_on_issue_id: blocker.id, type: "blocked_by" },
        as(ws.member),
      )
    ).body;
    await t.api.delete(`workspaces/${workspaceId}/issues/${blocked.id}/dependencies/${dependency.id}`, as(ws.owner));
    const label = await createLabel(t.api, workspaceId, ws.admin.token, "urgent-fix");
    await t.api.post(`workspaces/${workspaceId}/issues/${blocked.id}/labels/${label.id}`, undefined, as(ws.member));
    const comment = (
      await t.api.post(`workspaces/${workspaceId}/issues/${blocked.id}/comments`, { content: "On it" }, as(ws.member))
    ).body;
    await t.api.delete(`workspaces/${workspaceId}/issues/${blocked.id}/comments/${comment.id}`, as(ws.admin));
    await t.api.patch(`workspaces/${workspaceId}/members/${ws.member.user.id}`, { role: "admin" }, as(ws.owner));
    await t.api.delete(`workspaces/${workspaceId}/members/${ws.member.user.id}`, as(ws.owner));

    const feed = await workspaceFeed();
    const detailsOf = (action: string, entityId?: string) =>
      feed.filter((entry) => entry.action === action && (!entityId || entry.entity_id === entityId)).at(-1)?.details;

    expect(detailsOf("project.updated", project.id)?.changes).toEqual({
      lead_type: { from: null, to: "member" },
      lead_id: { from: null, to: ws.member.user.id, from_name: null, to_name: "member" },
    });
    expect(detailsOf("agent.updated", agent.id)?.changes).toEqual({
      owner_id: { from: ws.member.user.id, to: ws.admin.user.id, from_name: "member", to_name: "admin" },
    });
    const dependsOn = {
      type: "blocked_by",
      depends_on_issue_id: blocker.id,
      depends_on: blocker.identifier,
      depends_on_title: "Fix the build",
    };
    expect(detailsOf("dependency.created", dependency.id)).toEqual(dependsOn);
    expect(detailsOf("dependency.deleted", dependency.id)).toEqual(dependsOn);
    expect(detailsOf("label.linked", label.id)).toEqual({ name: "urgent-fix", identifier: blocked.identifier });
    expect(detailsOf("comment.deleted", comment.id)).toEqual({
      author_type: "member",
      author_id: ws.member.user.id,
      author_name: "member",
    });
    expect(detailsOf("member.updated")).toEqual({
      user_id: ws.member.user.id,
      user_name: "member",
      changes: { role: { from: "member", to: "admin" } },
    });
    expect(detailsOf("member.removed")).toEqual({ user_id: ws.member.user.id, user_name: "member", role: "admin" });
    expect(detailsOf("member.added")).toEqual({ user_id: ws.member.user.id, user_name: "member", role: "member" });
  });
});
