// The authorization matrix: for every workspace-scoped endpoint, a non-member gets 403, another workspace's resource
// addressed through this one is 404, and each role gets exactly the actions the contract gives it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ApiClient,
  createWorkspaceWithRoles,
  startTestApp,
  type TestApp,
  type WorkspaceWithRoles,
} from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";

type Role = "member" | "admin" | "owner";
type Ids = Record<string, string>;

/** Fresh resources in a workspace, made by its owner (so a plain member is neither creator, lead nor owner). */
async function makeResources(api: ApiClient, workspaceId: string, token: string): Promise<Ids> {
  const ws = `workspaces/${workspaceId}`;
  const post = async (path: string, body: unknown) => {
    const response = await api.post(`${ws}/${path}`, body, { token });
    if (response.status !== 201) throw new Error(`setup ${path}: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  };
  const project = await post("projects/", { title: "P" });
  const issue = await post("issues/", { title: "I", project_id: project.id });
  const other = await post("issues/", { title: "J" });
  const comment = await post(`issues/${issue.id}/comments`, { content: "hello" });
  const label = await post("labels", { name: `L-${Math.random()}` });
  const dependency = await post(`issues/${issue.id}/dependencies/`, { depends_on_issue_id: other.id, type: "blocks" });
  const agent = await post("agents/", { name: `A-${Math.random()}` });
  const key = await post("api-keys", { name: "k" });
  await api.post(`${ws}/issues/${issue.id}/labels/${label.id}`, undefined, { token });
  return {
    project: project.id,
    issue: issue.id,
    other: other.id,
    comment: comment.id,
    label: label.id,
    dependency: dependency.id,
    agent: agent.id,
    key: key.id,
  };
}

interface Endpoint {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** Path under /workspaces/{ws}/, from the ids of the resources it addresses. */
  path: (ids: Ids) => string;
  body?: (ids: Ids) => unknown;
  /** Least role allowed when the caller did not create the resource. */
  role: Role;
  /** Consumes or changes its resource for good (deletes, a second add is 409): each attempt gets fresh resources. */
  destructive?: boolean;
  /** Addresses a resource by id in its path, so another workspace's id must be 404. */
  addressesResource?: boolean;
}

const endpoints: Record<string, Endpoint> = {
  "get workspace": { method: "GET", path: () => "", role: "member" },
  "update workspace": { method: "PATCH", path: () => "", body: () => ({ description: "x" }), role: "admin" },
  "list members": { method: "GET", path: () => "members", role: "member" },
  "list projects": { method: "GET", path: () => "projects/", role: "member" },
  "create project": { method: "POST", path: () => "projects/", body: () => ({ title: "New" }), role: "member" },
  "get project": { method: "GET", path: (i) => `projects/${i.project}`, role: "member", addressesResource: true },
  "project stats": {
    method: "GET",
    path: (i) => `projects/${i.project}/stats`,
    role: "member",
    addressesResource: true,
  },
  "update project": {
    method: "PATCH",
    path: (i) => `projects/${i.project}`,
    body: () => ({ status: "in_progress" }),
    role: "admin",
    addressesResource: true,
  },
  "delete project": {
    method: "DELETE",
    path: (i) => `projects/${i.project}`,
    role: "admin",
    destructive: true,
    addressesResource: true,
  },
  "list issues": { method: "GET", path: () => "issues/", role: "member" },
  "create issue": { method: "POST", path: () => "issues/", body: () => ({ title: "New" }), role: "member" },
  "get issue": { method: "GET", path: (i) => `issues/${i.issue}`, role: "member", addressesResource: true },
  "update issue": {
    method: "PATCH",
    path: (i) => `issues/${i.issue}`,
    body: () => ({ status: "todo" }),
    role: "member",
    addressesResource: true,
  },
  "delete issue": {
    method: "DELETE",
    path: (i) => `issues/${i.issue}`,
    role: "admin",
    destructive: true,
    addressesResource: true,
  },
  "list comments": {
    method: "GET",
    path: (i) => `issues/${i.issue}/comments`,
    role: "member",
    addressesResource: true,
  },
  "add comment": {
    method: "POST",
    path: (i) => `issues/${i.issue}/comments`,
    body: () => ({ content: "hi" }),
    role: "member",
    addressesResource: true,
  },
  "edit comment": {
    method: "PATCH",
    path: (i) => `issues/${i.issue}/comments/${i.comment}`,
    body: () => ({ content: "edited" }),
    role: "admin",
    addressesResource: true,
  },
  "delete comment": {
    method: "DELETE",
    path: (i) => `issues/${i.issue}/comments/${i.comment}`,
    role: "admin",
    destructive: true,
    addressesResource: true,
  },
  "list labels": { method: "GET", path: () => "labels", role: "member" },
  "create label": {
    method: "POST",
    path: () => "labels",
    body: () => ({ name: `N-${Math.random()}` }),
    role: "member",
  },
  "update label": {
    method: "PATCH",
    path: (i) => `labels/${i.label}`,
    body: () => ({ color: "#112233" }),
    role: "admin",
    addressesResource: true,
  },
  "delete label": {
    method: "DELETE",
    path: (i) => `labels/${i.label}`,
    role: "admin",
    destructive: true,
    addressesResource: true,
  },
  "list issue labels": {
    method: "GET",
    path: (i) => `issues/${i.issue}/labels`,
    role: "member",
    addressesResource: true,
  },
  "link label": {
    method: "POST",
    path: (i) => `issues/${i.other}/labels/${i.label}`,
    role: "member",
    addressesResource: true,
  },
  "unlink label": {
    method: "DELETE",
    path: (i) => `issues/${i.issue}/labels/${i.label}`,
    role: "member",
    addressesResource: true,
  },
  "list dependencies": {
    method: "GET",
    path: (i) => `issues/${i.issue}/dependencies/`,
    role: "member",
    addressesResource: true,
  },
  "add dependency": {
    method: "POST",
    path: (i) => `issues/${i.other}/dependencies/`,
    body: (i) => ({ depends_on_issue_id: i.issue, type: "related" }),
    role: "member",
    destructive: true,
    addressesResource: true,
  },
  "delete dependency": {
    method: "DELETE",
    path: (i) => `issues/${i.issue}/dependencies/${i.dependency}`,
    role: "admin",
    destructive: true,
    addressesResource: true,
  },
  "list agents": { method: "GET", path: () => "agents/", role: "member" },
  "create agent": {
    method: "POST",
    path: () => "agents/",
    body: () => ({ name: `N-${Math.random()}` }),
    role: "member",
  },
  "get agent": { method: "GET", path: (i) => `agents/${i.agent}`, role: "member", addressesResource: true },
  "update agent": {
    method: "PATCH",
    path: (i) => `agents/${i.agent}`,
    body: () => ({ description: "d" }),
    role: "admin",
    addressesResource: true,
  },
  "delete agent": {
    method: "DELETE",
    path: (i) => `agents/${i.agent}`,
    role: "admin",
    destructive: true,
    addressesResource: true,
  },
  "list activity": { method: "GET", path: () => "activity", role: "member" },
  "issue activity": {
    method: "GET",
    path: (i) => `issues/${i.issue}/activity`,
    role: "member",
    addressesResource: true,
  },
  "list api keys": { method: "GET", path: () => "api-keys", role: "member" },
  "create api key": { method: "POST", path: () => "api-keys", body: () => ({ name: "k2" }), role: "admin" },
  "revoke api key": {
    method: "DELETE",
    path: (i) => `api-keys/${i.key}`,
    role: "admin",
    destructive: true,
    addressesResource: true,
  },
};

const RANK: Record<Role, number> = { member: 1, admin: 2, owner: 3 };

describe.each(testDialects)("authorization matrix (%s)", (dialect) => {
  let t: TestApp;
  let home: WorkspaceWithRoles;
  let away: WorkspaceWithRoles;
  let homeIds: Ids;
  let awayIds: Ids;

  beforeAll(async () => {
    t = await startTestApp(dialect);
    home = await createWorkspaceWithRoles(t.api);
    away = await createWorkspaceWithRoles(t.api);
    homeIds = await makeResources(t.api, home.workspaceId, home.owner.token);
    awayIds = await makeResources(t.api, away.workspaceId, away.owner.token);
  });
  afterAll(() => t.close());

  const call = (endpoint: Endpoint, workspaceId: string, ids: Ids, token: string) =>
    t.api.request(endpoint.method, `/api/v1/workspaces/${workspaceId}/${endpoint.path(ids)}`, endpoint.body?.(ids), {
      token,
    });

  it.each(Object.entries(endpoints))(
    "%s: a non-member gets 403, with or without a valid body",
    async (_name, endpoint) => {
      const response = await call(endpoint, home.workspaceId, homeIds, home.outsider.token);
      expect(response.status).toBe(403);
      expect(response.body).toEqual({ detail: "Not a member of this workspace or insufficient role" });
    },
  );

  it.each(Object.entries(endpoints).filter(([, endpoint]) => endpoint.addressesResource))(
    "%s: another workspace's resource addressed through this one is 404",
    async (_name, endpoint) => {
      const ids = { ...awayIds };
      const response = await call(endpoint, home.workspaceId, ids, home.owner.token);
      expect(response.status).toBe(404);
      expect(typeof response.body.detail).toBe("string");
      expect(response.body.detail).toMatch(/not found$/);
    },
  );

  it.each(Object.entries(endpoints))("%s: each role gets exactly what the contract allows", async (_name, endpoint) => {
    for (const role of ["member", "admin", "owner"] as const) {
      const ids = endpoint.destructive ? await makeResources(t.api, home.workspaceId, home.owner.token) : homeIds;
      const caller = home[role];
      const response = await call(endpoint, home.workspaceId, ids, caller.token);
      if (RANK[role] >= RANK[endpoint.role]) {
        expect(response.status, `${role}: ${JSON.stringify(response.body)}`).toBeLessThan(300);
      } else {
        expect(response.status, `${role}: ${JSON.stringify(response.body)}`).toBe(403);
      }
    }
  });

  it("creators may edit and delete what they made without being admins", async () => {
    const token = home.member.token;
    const ws = `workspaces/${home.workspaceId}`;
    const project = await t.api.post(`${ws}/projects/`, { title: "Mine" }, { token });
    expect((await t.api.patch(`${ws}/projects/${project.body.id}`, { title: "Still mine" }, { token })).status).toBe(
      200,
    );
    const issue = await t.api.post(`${ws}/issues/`, { title: "Mine" }, { token });
    const comment = await t.api.post(`${ws}/issues/${issue.body.id}/comments`, { content: "c" }, { token });
    const commentPath = `${ws}/issues/${issue.body.id}/comments/${comment.body.id}`;
    expect((await t.api.patch(commentPath, { content: "edited" }, { token })).status).toBe(200);
    expect((await t.api.delete(commentPath, { token })).status).toBe(204);
    expect((await t.api.delete(`${ws}/issues/${issue.body.id}`, { token })).status).toBe(204);
    const agent = await t.api.post(`${ws}/agents/`, { name: "mine" }, { token });
    expect((await t.api.patch(`${ws}/agents/${agent.body.id}`, { description: "d" }, { token })).status).toBe(200);
    expect((await t.api.delete(`${ws}/agents/${agent.body.id}`, { token })).status).toBe(204);
    expect((await t.api.delete(`${ws}/projects/${project.body.id}`, { token })).status).toBe(204);
  });
});
