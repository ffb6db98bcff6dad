// The service functions other features build on (the platform tools), called as they call them: with a database
// handle, input already parsed by the API's schemas, and an actor, which may be an agent.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "../../src/api/access.ts";
import { createCommentBody } from "../../src/platform/comments/schemas.ts";
import { addComment } from "../../src/platform/comments/service.ts";
import { listIssues } from "../../src/platform/issues/list.ts";
import { createIssueBody, updateIssueBody } from "../../src/platform/issues/schemas.ts";
import { createIssue as createIssueFrom, getIssue, updateIssue } from "../../src/platform/issues/service.ts";
import { listLabels } from "../../src/platform/labels/service.ts";
import { listProjects } from "../../src/platform/projects/service.ts";
import { platformToolSource } from "../../src/platform/tools.ts";
import { ToolInvoker } from "../../src/tools/invoker.ts";
import { ToolRegistry } from "../../src/tools/registry.ts";
import { createWorkspaceWithRoles, startTestApp, type TestApp } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";
import { activityOf, createLabel, createProject, insertAgent } from "../helpers/platform.ts";

const createIssue = (db: TestApp["db"], ws: string, input: Record<string, unknown>, actor: Actor) =>
  createIssueFrom(db, ws, createIssueBody.parse(input), actor);

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
    const updated = await updateIssue(t.db, ws, issue.id, updateIssueBody.parse({ status: "in_progress" }), agent);
    expect(updated.status).toBe("in_progress");
    const comment = await addComment(t.db, ws, issue.id, createCommentBody.parse({ content: "Working on it" }), agent);
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

  it("input through a platform tool is validated at the edge by the API's schemas, and ids are scoped to the workspace", async () => {
    const tools = new ToolInvoker(new ToolRegistry().addSource(platformToolSource(t.db)));
    const asAgent = { workspaceId: ws, agentId: agent.id };
    const create = (await tools.find("create_issue", asAgent))!;
    expect(await tools.call(create, { title: "" }, asAgent)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/title/),
    });
    expect(await tools.call(create, { title: "x", status: "nonsense" }, asAgent)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/status/),
    });
    expect(await tools.call(create, {}, asAgent)).toEqual({
      ok: false,
      error: "Invalid arguments for create_issue: title: Field required",
    });
    const update = (await tools.find("update_issue", asAgent))!;
    expect(await tools.call(update, { issue_id: "not-an-id", title: "x" }, asAgent)).toEqual({
      ok: false,
      error: "Issue not found",
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
