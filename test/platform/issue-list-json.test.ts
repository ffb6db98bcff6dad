// The issue list is serialised by the database; each item must be exactly what GET issues/{id} answers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspaceWithRoles, startTestApp, type TestApp } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";

describe.each(testDialects)("issue list JSON (%s)", (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(dialect);
  });
  afterAll(() => t.close());

  it("lists every issue exactly as GET returns it, in order, with every field type kept", async () => {
    const { workspaceId, owner } = await createWorkspaceWithRoles(t.api);
    const ws = `workspaces/${workspaceId}`;
    const token = owner.token;
    await t.api.patch(ws, { issue_prefix: "ENG" }, { token });
    const project = await t.api.post(`${ws}/projects/`, { title: "P" }, { token });
    const parent = await t.api.post(`${ws}/issues/`, { title: "Parent" }, { token });
    await t.api.post(
      `${ws}/issues/`,
      {
        title: 'Quotes " and \\ and ünïcödé ✓',
        description: "line one\nline two",
        priority: "urgent",
        status: "in_review",
        project_id: project.body.id,
        parent_issue_id: parent.body.id,
        assignee_type: "member",
        assignee_id: owner.user.id,
        acceptance_criteria: ["works", "is fast"],
        position: 2.5,
        due_date: "2026-12-01",
      },
      { token },
    );
    await t.api.post(`${ws}/issues/`, { title: "Negative position", position: -1 }, { token });

    const listed = await t.api.get(`${ws}/issues/`, { token });
    expect(listed.status).toBe(200);
    expect(listed.headers.get("content-type")).toMatch(/^application\/json/);
    expect(listed.body.map((issue: { title: string }) => issue.title)).toEqual([
      "Negative position",
      "Parent",
      'Quotes " and \\ and ünïcödé ✓',
    ]);
    for (const issue of listed.body) {
      const single = await t.api.get(`${ws}/issues/${issue.id}`, { token });
      expect(issue).toEqual(single.body);
    }
    expect(listed.body[2]).toMatchObject({ identifier: "ENG-2", number: 2, acceptance_criteria: ["works", "is fast"] });

    const empty = await t.api.get(`${ws}/issues/?q=nothing-matches-this`, { token });
    expect(empty).toMatchObject({ status: 200, body: [] });
  });
});
