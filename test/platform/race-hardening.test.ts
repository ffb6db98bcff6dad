// Requests that race each other (20 at once): every answer is the one a lone request would get (201/204, 404 or
// 409), never a 500, and what is stored afterwards obeys the rules (a workspace keeps an owner, slugs stay unique).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerUser, type TestUser } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";
import {
  createIssue,
  createLabel,
  createProject,
  startWorkspaceFixture,
  type WorkspaceFixture,
} from "../helpers/platform.ts";

const CONCURRENCY = 20;

const statuses = (responses: { status: number }[]) => responses.map((response) => response.status).sort();

describe.each(testDialects)("racing requests (%s)", (dialect) => {
  let f: WorkspaceFixture;
  const auth = () => ({ token: f.owner.token });

  beforeAll(async () => {
    f = await startWorkspaceFixture(dialect);
  });
  afterAll(async () => f?.t.close());

  /** A workspace of `count` owners, the first being its creator. */
  async function workspaceOfOwners(count: number): Promise<{ ws: string; owners: TestUser[] }> {
    const owners = await Promise.all(Array.from({ length: count }, () => registerUser(f.t.api, "owner")));
    const [creator, ...others] = owners as [TestUser, ...TestUser[]];
    const ws = (await f.t.api.post("workspaces/", { name: "Owned" }, { token: creator.token })).body.id;
    for (const other of others) {
      const added = await f.t.api.post(
        `workspaces/${ws}/members`,
        { user_id: other.user.id, role: "owner" },
        { token: creator.token },
      );
      expect(added.status).toBe(201);
    }
    return { ws, owners };
  }

  const ownersOf = async (ws: string) =>
    (
      await f.t.db
        .selectFrom("members")
        .select("user_id")
        .where("workspace_id", "=", ws)
        .where("role", "=", "owner")
        .execute()
    ).length;

  it("two owners leaving at once (ten workspaces, 20 requests) always leave one owner", async () => {
    const workspaces = await Promise.all(Array.from({ length: CONCURRENCY / 2 }, () => workspaceOfOwners(2)));
    const leaves = await Promise.all(
      workspaces.flatMap(({ ws, owners }) =>
        owners.map((owner) => f.t.api.delete(`workspaces/${ws}/members/${owner.user.id}`, { token: owner.token })),
      ),
    );
    expect(statuses(leaves)).toEqual([...Array(10).fill(204), ...Array(10).fill(409)]);
    for (const { ws } of workspaces) expect(await ownersOf(ws)).toBe(1);
  });

  it("two owners demoting each other at once always leave one owner", async () => {
    const workspaces = await Promise.all(Array.from({ length: CONCURRENCY / 2 }, () => workspaceOfOwners(2)));
    const demotions = await Promise.all(
      workspaces.flatMap(({ ws, owners: [first, second] }) => [
        f.t.api.patch(`workspaces/${ws}/members/${second!.user.id}`, { role: "admin" }, { token: first!.token }),
        f.t.api.patch(`workspaces/${ws}/members/${first!.user.id}`, { role: "admin" }, { token: second!.token }),
      ]),
    );
    for (const response of demotions) expect([200, 403, 409]).toContain(response.status);
    expect(demotions.filter((response) => response.status === 200)).toHaveLength(10);
    for (const { ws } of workspaces) expect(await ownersOf(ws)).toBe(1);
  });

  it("four owners all leaving and demoting each other at once keep at least one owner", async () => {
    const { ws, owners } = await workspaceOfOwners(4);
    const requests = owners.flatMap((owner) => [
      f.t.api.delete(`workspaces/${ws}/members/${owner.user.id}`, { token: owner.token }),
      ...owners
        .filter((other) => other !== owner)
        .map((other) => f.t.api.patch(`workspaces/${ws}/members/${other.user.id}`, { role: "member" }, owner)),
    ]);
    const responses = await Promise.all(requests);
    for (const response of responses) expect([200, 204, 403, 404, 409]).toContain(response.status);
    expect(await ownersOf(ws)).toBeGreaterThanOrEqual(1);
  });

  it("issues created in a project while it is deleted are 201 or 404, and none points at the deleted project", async () => {
    const project = await createProject(f.t.api, f.ws, f.owner.token);
    const requests = Array.from({ length: CONCURRENCY }, (_, index) =>
      index === CONCURRENCY / 2
        ? f.t.api.delete(`workspaces/${f.ws}/projects/${project.id}`, auth())
        : f.t.api.post(`workspaces/${f.ws}/issues/`, { title: `in project ${index}`, project_id: project.id }, auth()),
    );
    const responses = await Promise.all(requests);
    expect(responses[CONCURRENCY / 2]?.status).toBe(204);
    for (const response of responses) expect([201, 204, 404]).toContain(response.status);
    for (const response of responses.filter((response) => response.status === 404)) {
      expect(response.body.detail).toBe("Project not found");
    }
    const orphans = await f.t.db.selectFrom("issues").select("id").where("project_id", "=", project.id).execute();
    expect(orphans).toEqual([]);
  });

  it("sub-issues created under a parent while it is deleted are 201 or 404, and none points at the deleted parent", async () => {
    const parent = await createIssue(f.t.api, f.ws, f.owner.token);
    const requests = Array.from({ length: CONCURRENCY }, (_, index) =>
      index === CONCURRENCY / 2
        ? f.t.api.delete(`workspaces/${f.ws}/issues/${parent.id}`, auth())
        : f.t.api.post(`workspaces/${f.ws}/issues/`, { title: `child ${index}`, parent_issue_id: parent.id }, auth()),
    );
    const responses = await Promise.all(requests);
    expect(responses[CONCURRENCY / 2]?.status).toBe(204);
    for (const response of responses) expect([201, 204, 404]).toContain(response.status);
    const orphans = await f.t.db.selectFrom("issues").select("id").where("parent_issue_id", "=", parent.id).execute();
    expect(orphans).toEqual([]);
  });

  it("a label linked to issues while it is deleted gives 204 or 404, and no link outlives the label", async () => {
    const label = await createLabel(f.t.api, f.ws, f.owner.token, "racing");
    const targets = await Promise.all(
      Array.from({ length: CONCURRENCY - 1 }, () => createIssue(f.t.api, f.ws, f.owner.token)),
    );
    const requests = [
      ...targets.map((issue) =>
        f.t.api.post(`workspaces/${f.ws}/issues/${issue.id}/labels/${label.id}`, undefined, auth()),
      ),
      f.t.api.delete(`workspaces/${f.ws}/labels/${label.id}`, auth()),
    ];
    const responses = await Promise.all(requests);
    for (const response of responses) expect([204, 404]).toContain(response.status);
    expect(responses.at(-1)?.status).toBe(204);
    const links = await f.t.db.selectFrom("issue_labels").select("issue_id").where("label_id", "=", label.id).execute();
    expect(links).toEqual([]);
  });

  it("comments and replies added while their issue is deleted are 201 or 404 'Issue not found'", async () => {
    const issue = await createIssue(f.t.api, f.ws, f.owner.token);
    const comments = `workspaces/${f.ws}/issues/${issue.id}/comments`;
    const parent = (await f.t.api.post(comments, { content: "first" }, auth())).body;
    const requests = Array.from({ length: CONCURRENCY }, (_, index) =>
      index === CONCURRENCY / 2
        ? f.t.api.delete(`workspaces/${f.ws}/issues/${issue.id}`, auth())
        : f.t.api.post(comments, { content: `reply ${index}`, ...(index % 2 && { parent_id: parent.id }) }, auth()),
    );
    const responses = await Promise.all(requests);
    expect(responses[CONCURRENCY / 2]?.status).toBe(204);
    for (const response of responses) expect([201, 204, 404]).toContain(response.status);
    for (const response of responses.filter((response) => response.status === 404)) {
      expect(response.body.detail).toBe("Issue not found");
    }
    expect(await f.t.db.selectFrom("comments").select("id").where("issue_id", "=", issue.id).execute()).toEqual([]);
  });

  it("dependencies on an issue created while it is deleted are 201 or 404 'Issue not found'", async () => {
    const target = await createIssue(f.t.api, f.ws, f.owner.token);
    const sources = await Promise.all(
      Array.from({ length: CONCURRENCY - 1 }, () => createIssue(f.t.api, f.ws, f.owner.token)),
    );
    const responses = await Promise.all([
      ...sources.map((source) =>
        f.t.api.post(
          `workspaces/${f.ws}/issues/${source.id}/dependencies/`,
          { depends_on_issue_id: target.id, type: "blocks" },
          auth(),
        ),
      ),
      f.t.api.delete(`workspaces/${f.ws}/issues/${target.id}`, auth()),
    ]);
    expect(responses.at(-1)?.status).toBe(204);
    for (const response of responses) expect([201, 204, 404]).toContain(response.status);
    for (const response of responses.filter((response) => response.status === 404)) {
      expect(response.body.detail).toBe("Issue not found");
    }
    const left = await f.t.db
      .selectFrom("issue_dependencies")
      .select("id")
      .where("depends_on_issue_id", "=", target.id)
      .execute();
    expect(left).toEqual([]);
  });

  it("an issue deleted by 20 requests at once answers exactly one 204, the rest 404", async () => {
    const issue = await createIssue(f.t.api, f.ws, f.owner.token);
    const responses = await Promise.all(
      Array.from({ length: CONCURRENCY }, () => f.t.api.delete(`workspaces/${f.ws}/issues/${issue.id}`, auth())),
    );
    expect(statuses(responses)).toEqual([204, ...Array(CONCURRENCY - 1).fill(404)]);
    const deletions = await f.t.db
      .selectFrom("activity")
      .select("id")
      .where("entity_id", "=", issue.id)
      .where("action", "=", "issue.deleted")
      .execute();
    expect(deletions).toHaveLength(1);
  });

  it("workspaces created at once with one name, or one taken slug, all get 201 and distinct slugs", async () => {
    const name = `Same Name ${dialect}`;
    const derived = await Promise.all(
      Array.from({ length: CONCURRENCY / 2 }, () => f.t.api.post("workspaces/", { name }, auth())),
    );
    expect(statuses(derived)).toEqual(Array(CONCURRENCY / 2).fill(201));
    const base = `same-name-${dialect}`;
    expect(derived.map((response) => response.body.slug).sort()).toEqual(
      [base, ...Array.from({ length: CONCURRENCY / 2 - 1 }, (_, index) => `${base}-${index + 1}`)].sort(),
    );

    const slug = `chosen-${dialect}`;
    const chosen = await Promise.all(
      Array.from({ length: CONCURRENCY / 2 }, (_, index) =>
        f.t.api.post("workspaces/", { name: `W${index}`, slug }, auth()),
      ),
    );
    expect(statuses(chosen)).toEqual(Array(CONCURRENCY / 2).fill(201));
    expect(new Set(chosen.map((response) => response.body.slug)).size).toBe(CONCURRENCY / 2);
    expect(chosen.map((response) => response.body.slug)).toContain(slug);
  });
});
