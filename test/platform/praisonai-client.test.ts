// PraisonAI's Python PlatformClient, call for call (see test/helpers/praisonai-platform-client.ts), against our API.
// Every method the client has is exercised with its own path, body and headers; the statuses are the spec's.
// Its delete_* and add/remove_label methods call `resp.json()` on what is a 204 in both PraisonAI's server and
// ours; httpx raises on that empty body, so those calls are checked here on the wire (status and empty body).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerUser, startTestApp, type TestApp, type TestUser } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";
import { PraisonPlatformClient, type WireResponse } from "../helpers/praisonai-platform-client.ts";

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/;

const expectNoContent = (response: WireResponse) => {
  expect(response.status).toBe(204);
  expect(response.text).toBe("");
  expect(() => response.json()).toThrow();
};

describe.each(testDialects)("PraisonAI PlatformClient against our API (%s)", (dialect) => {
  let t: TestApp;
  let client: PraisonPlatformClient;
  let teammate: TestUser;
  let workspaceId: string;
  const email = `praison-${dialect}-${Date.now()}@Example.com`;

  beforeAll(async () => {
    t = await startTestApp(dialect);
    client = new PraisonPlatformClient(t.url);
    teammate = await registerUser(t.api, "teammate");
  });
  afterAll(async () => {
    client.close();
    await t.close();
  });

  it("register (name omitted → null), login, get_me", async () => {
    const registered = await client.register(email, "correct horse battery");
    expect(registered.status).toBe(201);
    const { token, user } = registered.json();
    expect(typeof token).toBe("string");
    expect(user).toEqual({
      id: expect.any(String),
      name: email.slice(0, email.indexOf("@")),
      email: email.replace("Example.com", "example.com"),
      avatar_url: null,
      created_at: expect.stringMatching(TIMESTAMP),
    });

    const named = new PraisonPlatformClient(t.url);
    expect((await named.register(`named-${email}`, "correct horse battery", "Named")).json().user.name).toBe("Named");
    named.close();

    const loggedIn = await client.login(email, "correct horse battery");
    expect(loggedIn.status).toBe(200);
    expect(loggedIn.json().user.id).toBe(user.id);
    const me = await client.get_me();
    expect(me.status).toBe(200);
    expect(me.json()).toEqual(user);
    await expect(client.login(email, "wrong password")).rejects.toMatchObject({ status: 401 });
    await expect(client.login(`nobody-${email}`, "whatever")).rejects.toMatchObject({ status: 404 });
  });

  it("create_workspace (slug null), list_workspaces, get_workspace, update_workspace", async () => {
    const created = await client.create_workspace("Praison Team");
    expect(created.status).toBe(201);
    workspaceId = created.json().id;
    expect(created.json()).toMatchObject({ name: "Praison Team", slug: expect.stringMatching(/^praison-team/) });
    const withSlug = await client.create_workspace("Slugged", `slugged-${dialect}-${Date.now()}`);
    expect(withSlug.status).toBe(201);

    const listed = await client.list_workspaces();
    expect(listed.status).toBe(200);
    expect(listed.json().map((w: { id: string }) => w.id)).toEqual([workspaceId, withSlug.json().id]);
    expect((await client.get_workspace(workspaceId)).json()).toMatchObject({ id: workspaceId });
    const updated = await client.update_workspace(workspaceId, { name: "Praison Team 2", description: "desc" });
    expect(updated.status).toBe(200);
    expect(updated.json()).toMatchObject({ name: "Praison Team 2", description: "desc" });
    expectNoContent(await client.delete_workspace(withSlug.json().id));
  });

  it("add_member, list_members, update_member_role, remove_member", async () => {
    const added = await client.add_member(workspaceId, teammate.user.id);
    expect(added.status).toBe(201);
    expect(added.json()).toMatchObject({ workspace_id: workspaceId, user_id: teammate.user.id, role: "member" });
    const members = await client.list_members(workspaceId);
    expect(members.json().map((m: { user_id: string }) => m.user_id)).toContain(teammate.user.id);
    const promoted = await client.update_member_role(workspaceId, teammate.user.id, "admin");
    expect(promoted.json()).toMatchObject({ role: "admin" });
    expectNoContent(await client.remove_member(workspaceId, teammate.user.id));
    expect((await client.add_member(workspaceId, teammate.user.id, "member")).status).toBe(201);
  });

  it("create_agent, list_agents, get_agent, update_agent, delete_agent", async () => {
    const created = await client.create_agent(workspaceId, "Coder", "local", "Write code.");
    expect(created.status).toBe(201);
    const agent = created.json();
    expect(agent).toMatchObject({
      workspace_id: workspaceId,
      name: "Coder",
      runtime_mode: "local",
      instructions: "Write code.",
      status: "offline",
      max_concurrent_tasks: 1,
      owner_type: "member",
      avatar_url: null,
      created_at: expect.stringMatching(TIMESTAMP),
    });
    const bare = await client.create_agent(workspaceId, "Cloudy", "cloud");
    expect(bare.json()).toMatchObject({ runtime_mode: "cloud", instructions: null });

    expect((await client.list_agents(workspaceId)).json().map((a: { id: string }) => a.id)).toEqual([
      agent.id,
      bare.json().id,
    ]);
    expect((await client.get_agent(workspaceId, agent.id)).json()).toEqual(agent);
    const updated = await client.update_agent(workspaceId, agent.id, {
      name: "Coder 2",
      status: "idle",
      runtime_config: { temperature: 0 },
      max_concurrent_tasks: 3,
    });
    expect(updated.status).toBe(200);
    expect(updated.json()).toMatchObject({ name: "Coder 2", status: "idle", max_concurrent_tasks: 3 });
    expectNoContent(await client.delete_agent(workspaceId, bare.json().id));
    await expect(client.get_agent(workspaceId, bare.json().id)).rejects.toMatchObject({ status: 404 });
  });

  let projectId: string;
  let issueId: string;
  let otherIssueId: string;

  it("create_project (description null), list_projects, get_project, update_project, get_project_stats", async () => {
    const created = await client.create_project(workspaceId, "Launch");
    expect(created.status).toBe(201);
    projectId = created.json().id;
    expect(created.json()).toMatchObject({ title: "Launch", description: null, status: "planned" });
    expect((await client.list_projects(workspaceId)).json().map((p: { id: string }) => p.id)).toEqual([projectId]);
    expect((await client.get_project(workspaceId, projectId)).json()).toMatchObject({ id: projectId });
    const updated = await client.update_project(workspaceId, projectId, { status: "in_progress", description: "Go" });
    expect(updated.json()).toMatchObject({ status: "in_progress", description: "Go" });
    const stats = await client.get_project_stats(workspaceId, projectId);
    expect(stats.status).toBe(200);
    expect(stats.json()).toMatchObject({ total: 0, by_status: expect.any(Object) });
  });

  it("create_issue, list_issues (status, project_id), get_issue, update_issue, add_comment, list_comments", async () => {
    const created = await client.create_issue(workspaceId, "Fix bug", {
      description: "The thing is broken",
      project_id: projectId,
      priority: "high",
    });
    expect(created.status).toBe(201);
    issueId = created.json().id;
    expect(created.json()).toMatchObject({
      title: "Fix bug",
      description: "The thing is broken",
      project_id: projectId,
      priority: "high",
      status: "backlog",
      number: 1,
      identifier: "ISS-1",
    });
    const plain = await client.create_issue(workspaceId, "Second");
    expect(plain.json()).toMatchObject({ priority: "none", number: 2, project_id: null });
    otherIssueId = plain.json().id;

    const filtered = await client.list_issues(workspaceId, { status: "backlog", project_id: projectId });
    expect(filtered.json().map((i: { id: string }) => i.id)).toEqual([issueId]);
    expect((await client.list_issues(workspaceId)).json()).toHaveLength(2);
    expect((await client.get_issue(workspaceId, issueId)).json()).toMatchObject({ id: issueId });
    const updated = await client.update_issue(workspaceId, issueId, { status: "in_progress", assignee_type: null });
    expect(updated.json()).toMatchObject({ status: "in_progress" });
    expect((await client.get_project_stats(workspaceId, projectId)).json()).toMatchObject({ total: 1 });

    const comment = await client.add_comment(workspaceId, issueId, "On it");
    expect(comment.status).toBe(201);
    expect(comment.json()).toMatchObject({ issue_id: issueId, content: "On it" });
    expect((await client.list_comments(workspaceId, issueId)).json().map((c: { id: string }) => c.id)).toEqual([
      comment.json().id,
    ]);
  });

  it("create_label (#000000, description ignored), list_labels, update_label, link, list, unlink, delete", async () => {
    const created = await client.create_label(workspaceId, "bug", "#000000", "Something broke");
    expect(created.status).toBe(201);
    const label = created.json();
    expect(label).toMatchObject({ workspace_id: workspaceId, name: "bug", color: "#000000" });
    expect((await client.list_labels(workspaceId)).json().map((l: { id: string }) => l.id)).toEqual([label.id]);
    expect((await client.update_label(workspaceId, label.id, { color: "#FF0000" })).json()).toMatchObject({
      color: "#FF0000",
    });
    // A POST with Content-Type: application/json and Content-Length: 0, as httpx sends it.
    expectNoContent(await client.add_label_to_issue(workspaceId, issueId, label.id));
    expectNoContent(await client.add_label_to_issue(workspaceId, issueId, label.id));
    expect((await client.list_issue_labels(workspaceId, issueId)).json().map((l: { id: string }) => l.id)).toEqual([
      label.id,
    ]);
    expectNoContent(await client.remove_label_from_issue(workspaceId, issueId, label.id));
    expect((await client.list_issue_labels(workspaceId, issueId)).json()).toEqual([]);
    expectNoContent(await client.delete_label(workspaceId, label.id));
    expect((await client.list_labels(workspaceId)).json()).toEqual([]);
  });

  it("create_dependency (no type in the body), list_dependencies, delete_dependency — without a trailing slash", async () => {
    const created = await client.create_dependency(workspaceId, issueId, otherIssueId);
    expect(created.status).toBe(201);
    const dependency = created.json();
    expect(dependency).toMatchObject({ issue_id: issueId, depends_on_issue_id: otherIssueId, type: "blocks" });
    const fromBlocker = await client.list_dependencies(workspaceId, otherIssueId);
    expect(fromBlocker.json().map((d: { id: string }) => d.id)).toEqual([dependency.id]);
    expect((await client.list_dependencies(workspaceId, issueId)).json().map((d: { id: string }) => d.id)).toEqual([
      dependency.id,
    ]);
    expectNoContent(await client.delete_dependency(workspaceId, issueId, dependency.id));
    expect((await client.list_dependencies(workspaceId, issueId)).json()).toEqual([]);
  });

  it("list_workspace_activity and list_issue_activity (limit as a string parameter), then the deletes", async () => {
    const feed = await client.list_workspace_activity(workspaceId);
    expect(feed.status).toBe(200);
    const actions = feed.json().map((entry: { action: string }) => entry.action);
    for (const action of ["workspace.created", "member.added", "agent.created", "issue.created", "comment.created"]) {
      expect(actions).toContain(action);
    }
    expect(feed.json().length).toBeLessThanOrEqual(50);
    expect((await client.list_workspace_activity(workspaceId, 2)).json()).toHaveLength(2);

    const issueFeed = await client.list_issue_activity(workspaceId, issueId);
    expect(issueFeed.status).toBe(200);
    const issueActions = issueFeed.json().map((entry: { action: string }) => entry.action);
    expect(issueActions.at(-1)).toBe("issue.created");
    expect(issueActions).toContain("comment.created");
    for (const entry of issueFeed.json()) expect(entry.issue_id).toBe(issueId);

    expectNoContent(await client.delete_issue(workspaceId, otherIssueId));
    expectNoContent(await client.delete_project(workspaceId, projectId));
    expect((await client.get_issue(workspaceId, issueId)).json().project_id).toBeNull();
    expectNoContent(await client.delete_workspace(workspaceId));
    expect((await client.list_workspaces()).json()).toEqual([]);
  });
});
