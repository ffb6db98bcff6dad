// The request shapes of PraisonAI's Python PlatformClient (praisonai_platform/client/platform_client.py) for
// projects, issues, comments, labels and dependencies: its exact paths (trailing slashes included), bodies and
// query parameters, and the status codes its callers expect (raise_for_status: any 2xx).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspaceWithRoles, startTestApp, type TestApp } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";

describe.each(testDialects)("PraisonAI PlatformClient call shapes for part A resources (%s)", (dialect) => {
  let t: TestApp;
  let ws: string;
  let token: string;
  let userId: string;
  // The client joins `/api/v1` and the path exactly as below.
  const call = (method: string, path: string, body?: unknown) =>
    t.api.request(method, `/api/v1/workspaces/${ws}${path}`, body, { token });

  beforeAll(async () => {
    t = await startTestApp(dialect);
    const setup = await createWorkspaceWithRoles(t.api);
    ws = setup.workspaceId;
    token = setup.member.token;
    userId = setup.member.user.id;
  });
  afterAll(() => t.close());

  it("projects: create_project, list_projects, get_project, update_project, get_project_stats, delete_project", async () => {
    const created = await call("POST", "/projects/", { title: "Roadmap", description: null });
    expect(created.status).toBe(201);
    const projectId = created.body.id;
    expect((await call("GET", "/projects/")).body.map((project: any) => project.id)).toEqual([projectId]);
    expect((await call("GET", `/projects/${projectId}`)).body.title).toBe("Roadmap");
    expect((await call("PATCH", `/projects/${projectId}`, { status: "in_progress" })).body.status).toBe("in_progress");
    expect((await call("GET", `/projects/${projectId}/stats`)).body).toMatchObject({ total: 0, by_status: {} });
    expect((await call("DELETE", `/projects/${projectId}`)).status).toBe(204);
  });

  it("issues: create_issue (only set fields sent), list_issues(status, project_id), get, update, delete", async () => {
    const project = (await call("POST", "/projects/", { title: "P", description: null })).body;
    const created = await call("POST", "/issues/", {
      title: "Fix bug",
      priority: "none",
      description: "The thing is broken",
      project_id: project.id,
      assignee_type: "member",
      assignee_id: userId,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ number: 1, identifier: "ISS-1", creator_id: userId, status: "backlog" });
    const minimal = await call("POST", "/issues/", { title: "Minimal", priority: "none" });
    expect(minimal.status).toBe(201);

    const listed = await t.api.get(`/api/v1/workspaces/${ws}/issues/?status=backlog&project_id=${project.id}`, {
      token,
    });
    expect(listed.body.map((issue: any) => issue.id)).toEqual([created.body.id]);
    expect((await call("GET", `/issues/${created.body.id}`)).body.title).toBe("Fix bug");
    const updated = await call("PATCH", `/issues/${created.body.id}`, { status: "in_progress", priority: "high" });
    expect(updated.body).toMatchObject({ status: "in_progress", priority: "high" });
    expect((await call("DELETE", `/issues/${minimal.body.id}`)).status).toBe(204);
  });

  it("issues created with acceptance_criteria (a list of strings) and parent_issue_id, as the platform service accepts", async () => {
    const parent = (await call("POST", "/issues/", { title: "Epic" })).body;
    const child = await call("POST", "/issues/", {
      title: "Story",
      status: "todo",
      parent_issue_id: parent.id,
      acceptance_criteria: ["Given a user, when they log in, then they see the dashboard"],
    });
    expect(child).toMatchObject({
      status: 201,
      body: {
        parent_issue_id: parent.id,
        acceptance_criteria: ["Given a user, when they log in, then they see the dashboard"],
      },
    });
  });

  it("comments: add_comment, list_comments", async () => {
    const issue = (await call("POST", "/issues/", { title: "Discuss", priority: "none" })).body;
    const added = await call("POST", `/issues/${issue.id}/comments`, { content: "Looks good" });
    expect(added).toMatchObject({ status: 201, body: { content: "Looks good", type: "comment", author_id: userId } });
    expect((await call("GET", `/issues/${issue.id}/comments`)).body).toHaveLength(1);
  });

  it("labels: create_label (colour #000000, description ignored), list, update, link, list on issue, unlink, delete", async () => {
    const created = await call("POST", "/labels/", { name: "bug", color: "#000000", description: "Something broke" });
    expect(created).toMatchObject({ status: 201, body: { name: "bug", color: "#000000" } });
    expect(created.body).not.toHaveProperty("description");
    const withDefault = await call("POST", "/labels/", { name: "plain" });
    expect(withDefault.body.color).toBe("#6B7280");
    expect((await call("GET", "/labels/")).body.map((label: any) => label.name)).toEqual(["bug", "plain"]);
    const issue = (await call("POST", "/issues/", { title: "Labelled", priority: "none" })).body;
    expect((await call("POST", `/issues/${issue.id}/labels/${created.body.id}`)).status).toBe(204);
    expect((await call("GET", `/issues/${issue.id}/labels`)).body.map((label: any) => label.id)).toEqual([
      created.body.id,
    ]);
    expect((await call("DELETE", `/issues/${issue.id}/labels/${created.body.id}`)).status).toBe(204);
    // update_label and delete_label are admin actions here; the member gets 403, as the spec says.
    expect((await call("PATCH", `/labels/${created.body.id}`, { color: "#FF0000" })).status).toBe(403);
  });

  it("dependencies: create_dependency (no type: blocks), list_dependencies, delete_dependency", async () => {
    const a = (await call("POST", "/issues/", { title: "A", priority: "none" })).body;
    const b = (await call("POST", "/issues/", { title: "B", priority: "none" })).body;
    const created = await call("POST", `/issues/${a.id}/dependencies`, { depends_on_issue_id: b.id });
    expect(created).toMatchObject({ status: 201, body: { issue_id: a.id, depends_on_issue_id: b.id, type: "blocks" } });
    expect((await call("GET", `/issues/${a.id}/dependencies`)).body).toHaveLength(1);
    expect((await call("DELETE", `/issues/${a.id}/dependencies/${created.body.id}`)).status).toBe(204);
  });

  it(`answers on ${dialect} without redirects for both slash forms`, async () => {
    for (const path of ["/projects", "/projects/", "/issues", "/issues/", "/labels", "/labels/"]) {
      expect((await call("GET", path)).status, path).toBe(200);
    }
  });
});
