// Issue list pages are cached under a per-workspace version: every write that can change a page must show at once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listIssues } from "../../src/platform/issues/list.ts";
import { changingIssueLists } from "../../src/platform/issues/list-version.ts";
import { createWorkspaceWithRoles, startTestApp, type TestApp } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";

describe.each(testDialects)("issue list cache (%s)", (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(dialect);
  });
  afterAll(() => t.close());

  it("every kind of write shows in the very next list, for every filter", async () => {
    const { workspaceId, owner } = await createWorkspaceWithRoles(t.api);
    const ws = `workspaces/${workspaceId}`;
    const token = owner.token;
    const post = async (path: string, body?: unknown) => (await t.api.post(`${ws}/${path}`, body, { token })).body;
    const project = await post("projects/", { title: "P" });
    const label = await post("labels", { name: "bug" });
    const parent = await post("issues/", { title: "Parent", project_id: project.id });
    const child = await post("issues/", { title: "Child", parent_issue_id: parent.id });

    const views = () => [
      { query: "", filters: {} },
      { query: `?label_id=${label.id}`, filters: { label_id: [label.id] } },
      { query: `?project_id=${project.id}`, filters: { project_id: [project.id] } },
      { query: "?q=iss-1", filters: { q: "iss-1" } },
      { query: "?q=eng-1", filters: { q: "eng-1" } },
      { query: "?limit=1&offset=1", filters: { limit: 1, offset: 1 } },
    ];
    const expectListsFresh = async (step: string) => {
      for (const view of views()) {
        const listed = await t.api.get(`${ws}/issues/${view.query}`, { token });
        const truth = await listIssues(t.db, workspaceId, { limit: 50, offset: 0, ...view.filters });
        expect(listed.body, `${step}: issues/${view.query}`).toEqual(JSON.parse(JSON.stringify(truth)));
      }
    };

    const writes: [string, () => Promise<unknown>][] = [
      ["create", () => post("issues/", { title: "Third" })],
      ["update", () => t.api.patch(`${ws}/issues/${child.id}`, { title: "Renamed", position: -5 }, { token })],
      ["link label", () => post(`issues/${child.id}/labels/${label.id}`)],
      ["unlink label", () => t.api.delete(`${ws}/issues/${child.id}/labels/${label.id}`, { token })],
      ["link again", () => post(`issues/${parent.id}/labels/${label.id}`)],
      ["delete label", () => t.api.delete(`${ws}/labels/${label.id}`, { token })],
      ["change prefix", () => t.api.patch(ws, { issue_prefix: "ENG" }, { token })],
      ["delete project", () => t.api.delete(`${ws}/projects/${project.id}`, { token })],
      ["delete parent", () => t.api.delete(`${ws}/issues/${parent.id}`, { token })],
    ];
    await expectListsFresh("start");
    await expectListsFresh("cached");
    for (const [step, write] of writes) {
      await write();
      await expectListsFresh(step);
    }
  });

  it("pages really are cached: a write that bypasses changingIssueLists stays unseen until one goes through it", async () => {
    const { workspaceId, owner } = await createWorkspaceWithRoles(t.api);
    const ws = `workspaces/${workspaceId}`;
    const token = owner.token;
    const issue = (await t.api.post(`${ws}/issues/`, { title: "Cached" }, { token })).body;
    const titles = async () =>
      (await t.api.get(`${ws}/issues/`, { token })).body.map((row: { title: string }) => row.title);
    expect(await titles()).toEqual(["Cached"]);

    await t.db.updateTable("issues").set({ title: "Behind the cache's back" }).where("id", "=", issue.id).execute();
    expect(await titles()).toEqual(["Cached"]);

    await changingIssueLists(t.db, workspaceId, async () => {});
    expect(await titles()).toEqual(["Behind the cache's back"]);
  });
});
