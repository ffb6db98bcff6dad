// Two server processes on one database, each with its own issue list page cache: a write through one process shows
// in the very next list of the other, and lists racing a stream of writes never show a page older than a write
// that was answered before the list was sent.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listIssues } from "../../src/platform/issues/list.ts";
import { createWorkspaceWithRoles, startAppOn, startTestApp, type TestApp } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";

describe.each(testDialects)("issue list pages across two processes (%s)", (dialect) => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await startTestApp(dialect);
    b = await startAppOn(a.databaseUrl, dialect);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it("a write through B shows in A's very next list, for every kind of write and filter", async () => {
    const { workspaceId, owner } = await createWorkspaceWithRoles(a.api);
    const ws = `workspaces/${workspaceId}`;
    const token = owner.token;
    const post = async (path: string, body?: unknown) => (await b.api.post(`${ws}/${path}`, body, { token })).body;
    const project = await post("projects/", { title: "P" });
    const label = await post("labels", { name: "bug" });
    const first = await post("issues/", { title: "First", project_id: project.id });

    const views = [
      { query: "", filters: {} },
      { query: `?label_id=${label.id}`, filters: { label_id: [label.id] } },
      { query: `?project_id=${project.id}`, filters: { project_id: [project.id] } },
      { query: "?q=first", filters: { q: "first" } },
    ];
    const expectFreshOn = async (app: TestApp, step: string) => {
      for (const view of views) {
        const listed = await app.api.get(`${ws}/issues/${view.query}`, { token });
        expect(listed.status).toBe(200);
        const truth = await listIssues(a.db, workspaceId, { limit: 50, offset: 0, ...view.filters });
        expect(listed.body, `${step}: issues/${view.query}`).toEqual(JSON.parse(JSON.stringify(truth)));
      }
    };

    const writes: [string, () => Promise<unknown>][] = [
      ["create", () => post("issues/", { title: "Second" })],
      ["rename", () => b.api.patch(`${ws}/issues/${first.id}`, { title: "First, renamed" }, { token })],
      ["link label", () => post(`issues/${first.id}/labels/${label.id}`)],
      ["change prefix", () => b.api.patch(ws, { issue_prefix: "ENG" }, { token })],
      ["delete project", () => b.api.delete(`${ws}/projects/${project.id}`, { token })],
      ["delete issue", () => b.api.delete(`${ws}/issues/${first.id}`, { token })],
    ];
    await expectFreshOn(a, "start");
    await expectFreshOn(a, "cached on A");
    for (const [step, write] of writes) {
      await write();
      await expectFreshOn(a, step);
      await expectFreshOn(b, step);
    }
  });

  it("lists on A racing writes on B: every list shows at least every write answered before it was sent", async () => {
    const { workspaceId, owner } = await createWorkspaceWithRoles(a.api);
    const ws = `workspaces/${workspaceId}`;
    const token = owner.token;
    const issue = (await b.api.post(`${ws}/issues/`, { title: "Edited 0" }, { token })).body;
    let answered = 0;
    let writing = true;
    const writer = (async () => {
      for (let n = 1; writing && n <= 40; n++) {
        const response = await b.api.patch(`${ws}/issues/${issue.id}`, { title: `Edited ${n}` }, { token });
        expect(response.status).toBe(200);
        answered = n;
      }
    })();
    const reader = async () => {
      for (let round = 0; round < 15; round++) {
        const seenBefore = answered;
        const listed = await a.api.get(`${ws}/issues/`, { token });
        expect(listed.status).toBe(200);
        const shown = Number(/Edited (\d+)/.exec(listed.body[0].title)?.[1]);
        expect(shown).toBeGreaterThanOrEqual(seenBefore);
      }
    };
    await Promise.all([reader(), reader(), reader(), reader()]);
    writing = false;
    await writer;
    const final = await a.api.get(`${ws}/issues/`, { token });
    expect(final.body[0].title).toBe(`Edited ${answered}`);
  });
});
