// Issues carry the ids of their labels, in the list (one request for a whole board) as in a single read, and they
// follow links and unlinks, a label's deletion and the issue's own updates.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspaceWithRoles, startTestApp, type TestApp } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";

describe.each(testDialects)("issues carry label_ids (%s)", (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(dialect);
  });
  afterAll(() => t.close());

  it("the list and a single read name the linked labels; links, unlinks and deletions show at once", async () => {
    const { workspaceId, owner } = await createWorkspaceWithRoles(t.api);
    const ws = `workspaces/${workspaceId}`;
    const token = owner.token;
    const bug = (await t.api.post(`${ws}/labels`, { name: "bug" }, { token })).body.id as string;
    const docs = (await t.api.post(`${ws}/labels`, { name: "docs" }, { token })).body.id as string;
    const created = await t.api.post(`${ws}/issues/`, { title: "Tagged" }, { token });
    expect(created.body.label_ids).toEqual([]);
    const plain = (await t.api.post(`${ws}/issues/`, { title: "Plain" }, { token })).body;
    const issue = created.body.id as string;
    await t.api.post(`${ws}/issues/${issue}/labels/${bug}`, {}, { token });
    await t.api.post(`${ws}/issues/${issue}/labels/${docs}`, {}, { token });

    const labelsOf = async () => {
      const list = (await t.api.get(`${ws}/issues/`, { token })).body as { id: string; label_ids: string[] }[];
      return Object.fromEntries(list.map((each) => [each.id, each.label_ids]));
    };
    const both = [bug, docs].sort();
    expect(await labelsOf()).toEqual({ [issue]: both, [plain.id]: [] });
    expect((await t.api.get(`${ws}/issues/${issue}`, { token })).body.label_ids).toEqual(both);
    // An update answers with the labels too, and the label filter still narrows the list.
    const updated = await t.api.patch(`${ws}/issues/${issue}`, { priority: "high" }, { token });
    expect(updated.body.label_ids).toEqual(both);
    const filtered = (await t.api.get(`${ws}/issues/?label_id=${docs}`, { token })).body;
    expect(filtered.map((each: { id: string; label_ids: string[] }) => [each.id, each.label_ids])).toEqual([
      [issue, both],
    ]);

    await t.api.delete(`${ws}/issues/${issue}/labels/${bug}`, { token });
    expect(await labelsOf()).toEqual({ [issue]: [docs], [plain.id]: [] });
    await t.api.delete(`${ws}/labels/${docs}`, { token });
    expect(await labelsOf()).toEqual({ [issue]: [], [plain.id]: [] });
    expect((await t.api.get(`${ws}/issues/${issue}`, { token })).body.label_ids).toEqual([]);
  });

  it("the OpenAPI schema documents label_ids on Issue", async () => {
    const spec = (await (await fetch(`${t.url}/openapi.json`)).json()) as any;
    const issue = spec.components.schemas.Issue;
    expect(issue.required).toContain("label_ids");
    expect(issue.properties.label_ids).toMatchObject({ type: "array", items: { type: "string" } });
  });
});
