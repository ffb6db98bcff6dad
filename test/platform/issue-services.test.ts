// The service functions other features build on (the tool-protocol helper's platform tools), called as they
// call them: with a database handle and an actor, which may be an agent.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ValidationError } from "../../src/http/errors.ts";
import type { Actor } from "../../src/platform/access.ts";
import { addComment } from "../../src/platform/comments/service.ts";
import { createIssue, getIssue, listIssues, updateIssue } from "../../src/platform/issues/service.ts";
import { listLabels } from "../../src/platform/labels/service.ts";
import { listProjects } from "../../src/platform/projects/service.ts";
import { createWorkspaceWithRoles, startTestApp, type TestApp } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";
import { activityOf, createLabel, createProject, insertAgent } from "../helpers/platform.ts";

describe.each(testDialects)("issue services for other features (%s)", (dialect) => {
  let t: TestApp;
  let ws: string;
  let agent: Actor;
  let memberToken: string;

  beforeAll(async () => {
    t = await startTestApp(dialect);
    const setup = await createWorkspaceWithRoles(t.api);
    ws = setup.workspaceId;
    memberToken = setup.member.token;
    agent = { type: "agent", id: await insertAgent(t, ws, "Worker") };
  });
  afterAll(() => t.close());

  it("an agent creates, updates and comments on an issue; activity names the agent", async () => {
    const issue = await createIssue(t.db, ws, { title: "Agent task", acceptance_criteria: ["done"] }, agent);
    expect(issue).toMatchObject({
      creator_type: "agent",
      creator_id: agent.id,
      status: "backlog",
      priority: "none",
      acceptance_criteria: ["done"],
    });
    const updated = await updateIssue(t.db, ws, issue.id, { status: "in_progress" }, agent);
    expect(updated.status).toBe("in_progress");
    const comment = await addComment(t.db, ws, issue.id, { content: "Working on it" }, agent);
    expect(comment).toMatchObject({ author_type: "agent", author_id: agent.id, type: "comment" });

    const seen = await t.api.get(`workspaces/${ws}/issues/${issue.id}`, { token: memberToken });
    expect(seen.body).toEqual(await getIssue(t.db, ws, issue.id));
    const logged = (await activityOf(t, ws)).filter((row) => row.issue_id === issue.id);
    expect(logged.map((row) => [row.action, row.actor_type, row.actor_id])).toEqual([
      ["issue.created", "agent", agent.id],
      ["issue.updated", "agent", agent.id],
      ["comment.created", "agent", agent.id],
    ]);
  });

  it("input that skipped the HTTP schemas is still validated (422), and ids are scoped to the workspace", async () => {
    await expect(createIssue(t.db, ws, { title: "" }, agent)).rejects.toBeInstanceOf(ValidationError);
    await expect(
      createIssue(t.db, ws, { title: "x", status: "nonsense" } as unknown as { title: string }, agent),
    ).rejects.toBeInstanceOf(ValidationError);
    await expect(updateIssue(t.db, ws, "not-an-id", { title: "x" }, agent)).rejects.toMatchObject({
      statusCode: 404,
      detail: "Issue not found",
    });
    const elsewhere = await createWorkspaceWithRoles(t.api);
    await expect(
      getIssue(t.db, elsewhere.workspaceId, (await listIssues(t.db, ws, { limit: 1, offset: 0 }))[0]!.id),
    ).rejects.toMatchObject({ statusCode: 404 });
  });

  it("listIssues, listProjects and listLabels take filters and a page", async () => {
    const project = await createProject(t.api, ws, memberToken, { title: "Tools" });
    await createLabel(t.api, ws, memberToken, "from-tools");
    await createIssue(t.db, ws, { title: "In project", project_id: project.id, priority: "high" }, agent);
    const found = await listIssues(t.db, ws, { project_id: [project.id], priority: ["high"], limit: 10, offset: 0 });
    expect(found.map((issue) => issue.title)).toEqual(["In project"]);
    expect((await listIssues(t.db, ws, { q: "IN PROJ", limit: 10, offset: 0 })).map((issue) => issue.title)).toEqual([
      "In project",
    ]);
    expect((await listProjects(t.db, ws, { limit: 10, offset: 0 })).map((p) => p.title)).toEqual(["Tools"]);
    expect((await listLabels(t.db, ws, { limit: 10, offset: 0 })).map((label) => label.name)).toEqual(["from-tools"]);
  });
});
