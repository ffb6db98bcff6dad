// Every project, issue, comment, label and dependency endpoint, fed wrong types, wrong shapes and hostile ids:
// always a documented 4xx, never a 500, and nothing stored.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspaceWithRoles, startTestApp, type TestApp, type TestUser } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";
import { createIssue, createLabel, createProject } from "../helpers/platform.ts";

const TABLES = ["projects", "issues", "comments", "labels", "issue_labels", "issue_dependencies", "activity"] as const;

const GARBAGE_BODIES: unknown[] = [
  null,
  42,
  "text",
  [],
  [{}],
  {},
  { title: {}, name: [], content: 1, depends_on_issue_id: {}, status: 3 },
  { title: "\u0000", name: "\u0000", content: "\u0000", depends_on_issue_id: "\u0000" },
  { title: "x".repeat(200_000), name: "x".repeat(200_000), content: "x".repeat(200_000) },
];

/** Bodies that are wrong only for one resource (other resources would ignore the fields). */
const WRONG_FOR: Record<string, unknown[]> = {
  project: [
    { title: "x", status: "active" },
    { title: "x", lead_type: "team" },
    { title: "x", icon: 5 },
  ],
  issue: [
    { title: "x", status: "open" },
    { title: "x", priority: "p0" },
    { title: "x", position: null },
    { title: "x", position: "1" },
    { title: "x", due_date: "2026-13-45" },
    { title: "x", acceptance_criteria: [null] },
    { title: "x", assignee_type: "member", assignee_id: ["a"] },
    { title: "x", project_id: { $ne: null } },
  ],
  comment: [{ content: "" }, { content: ["x"] }, { content: null, parent_id: 5 }],
  label: [
    { name: "x", color: "blue" },
    { name: "x", color: 0x123456 },
  ],
  dependency: [{ depends_on_issue_id: "x", type: "blocks-ish" }, { depends_on_issue_id: null }],
};

const HOSTILE_IDS = ["not-a-uuid", "%00", "%27%20OR%201%3D1--", "..%2F..%2Fetc", "9".repeat(90), "%F0%9F%92%A9"];

describe.each(testDialects)("bad input on part A endpoints (%s)", (dialect) => {
  let t: TestApp;
  let ws: string;
  let owner: TestUser;
  let ids: { project: string; issue: string; comment: string; label: string; dependency: string };

  const counts = async () =>
    Promise.all(
      TABLES.map(async (table) => {
        const row = await t.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<string | number>().as("n"))
          .executeTakeFirstOrThrow();
        return Number(row.n);
      }),
    );

  const endpoints = (id: typeof ids) => {
    const base = `workspaces/${ws}`;
    return [
      ["POST", `${base}/projects/`, "project"],
      ["PATCH", `${base}/projects/${id.project}`, "project"],
      ["POST", `${base}/issues/`, "issue"],
      ["PATCH", `${base}/issues/${id.issue}`, "issue"],
      ["POST", `${base}/issues/${id.issue}/comments`, "comment"],
      ["PATCH", `${base}/issues/${id.issue}/comments/${id.comment}`, "comment"],
      ["POST", `${base}/labels`, "label"],
      ["PATCH", `${base}/labels/${id.label}`, "label"],
      ["POST", `${base}/issues/${id.issue}/dependencies/`, "dependency"],
    ] as const;
  };

  beforeAll(async () => {
    t = await startTestApp(dialect);
    ({ workspaceId: ws, owner } = await createWorkspaceWithRoles(t.api));
    const issue = await createIssue(t.api, ws, owner.token);
    const other = await createIssue(t.api, ws, owner.token);
    ids = {
      project: (await createProject(t.api, ws, owner.token)).id,
      issue: issue.id,
      comment: (
        await t.api.post(`workspaces/${ws}/issues/${issue.id}/comments`, { content: "c" }, { token: owner.token })
      ).body.id,
      label: (await createLabel(t.api, ws, owner.token, "l")).id,
      dependency: (
        await t.api.post(
          `workspaces/${ws}/issues/${issue.id}/dependencies/`,
          { depends_on_issue_id: other.id },
          { token: owner.token },
        )
      ).body.id,
    };
  });
  afterAll(() => t.close());

  it("wrong types and shapes in bodies are 422 with loc body, and store nothing", async () => {
    const before = await counts();
    for (const [method, path, resource] of endpoints(ids)) {
      const wrongBodies = [...GARBAGE_BODIES, ...(WRONG_FOR[resource] ?? [])];
      // An empty object is a valid (no-op) merge patch.
      const isEmptyObject = (body: unknown) => JSON.stringify(body) === "{}";
      for (const body of wrongBodies.filter((body) => method === "POST" || !isEmptyObject(body))) {
        const response = await t.api.request(method, path, body, { token: owner.token });
        expect(response.status, `${method} ${path} ${JSON.stringify(body)?.slice(0, 80)}`).toBe(422);
        expect(response.body.detail[0].loc[0]).toBe("body");
      }
      const malformed = await t.api.request(method, path, undefined, { token: owner.token, raw: '{"title": ' });
      expect(malformed.status).toBe(422);
      const oversize = await t.api.request(method, path, undefined, {
        token: owner.token,
        raw: JSON.stringify({ title: "x".repeat(1024 * 1024 + 10) }),
      });
      expect(oversize.status, `${method} ${path} oversize`).toBe(413);
    }
    expect(await counts()).toEqual(before);
  });

  it("hostile ids in paths are 404 (never 500) on every route, and change nothing", async () => {
    const before = await counts();
    for (const bad of HOSTILE_IDS) {
      const variants = [
        { ...ids, project: bad },
        { ...ids, issue: bad },
        { ...ids, comment: bad },
        { ...ids, label: bad },
        { ...ids, dependency: bad },
      ];
      for (const id of variants) {
        const base = `workspaces/${ws}`;
        const routes: [string, string, unknown?][] = [
          ["GET", `${base}/projects/${id.project}`],
          ["GET", `${base}/projects/${id.project}/stats`],
          ["PATCH", `${base}/projects/${id.project}`, { title: "t" }],
          ["DELETE", `${base}/projects/${id.project}`],
          ["GET", `${base}/issues/${id.issue}`],
          ["PATCH", `${base}/issues/${id.issue}`, { title: "t" }],
          ["GET", `${base}/issues/${id.issue}/comments`],
          ["POST", `${base}/issues/${id.issue}/comments`, { content: "c", parent_id: id.comment }],
          ["PATCH", `${base}/issues/${id.issue}/comments/${id.comment}`, { content: "c" }],
          ["DELETE", `${base}/issues/${id.issue}/comments/${id.comment}`],
          ["GET", `${base}/labels/${id.label}`],
          ["PATCH", `${base}/labels/${id.label}`, { name: "n" }],
          ["GET", `${base}/issues/${id.issue}/labels`],
          ["POST", `${base}/issues/${id.issue}/labels/${id.label}`],
          ["DELETE", `${base}/issues/${id.issue}/labels/${id.label}`],
          ["GET", `${base}/issues/${id.issue}/dependencies/`],
          ["DELETE", `${base}/issues/${id.issue}/dependencies/${id.dependency}`],
        ];
        for (const [method, path, body] of routes) {
          // Routes whose ids are all valid are left alone (they would really change things).
          if (!path.includes(bad)) continue;
          const response = await t.api.request(method, path, body, { token: owner.token });
          expect(response.status, `${method} ${path}`).toBe(404);
          expect(response.body.detail).toMatch(/not found$/i);
        }
      }
    }
    const tooLong = await t.api.get(`workspaces/${ws}/issues/${"9".repeat(300)}`, { token: owner.token });
    // A malformed id of any length names nothing (issue 14: no 414 in the framework's shape).
    expect(tooLong.status).toBe(404);
    expect(tooLong.body).toEqual({ detail: "Issue not found" });
    expect(await counts()).toEqual(before);
  });

  it("hostile ids in bodies and queries are 404 or 422 or an empty list, never 500", async () => {
    const base = `workspaces/${ws}`;
    for (const bad of ["not-a-uuid", "' OR 1=1 --", "x".repeat(100)]) {
      for (const body of [
        { title: "t", project_id: bad },
        { title: "t", parent_issue_id: bad },
        { title: "t", assignee_type: "agent", assignee_id: bad },
      ]) {
        expect((await t.api.post(`${base}/issues/`, body, { token: owner.token })).status).toBe(404);
      }
      expect(
        (
          await t.api.post(
            `${base}/issues/${ids.issue}/dependencies/`,
            { depends_on_issue_id: bad },
            { token: owner.token },
          )
        ).status,
      ).toBe(404);
      const query = encodeURIComponent(bad);
      for (const filter of ["project_id", "assignee_id", "creator_id", "parent_issue_id", "label_id", "q"]) {
        const response = await t.api.get(`${base}/issues/?${filter}=${query}`, { token: owner.token });
        expect(response, `${filter}=${bad}`).toMatchObject({ status: 200, body: [] });
      }
    }
    for (const query of [
      "status=%00",
      "project_id=%00",
      "q=%00",
      "offset=1e400",
      "limit=%00",
      "status=todo&status=nope",
    ]) {
      const response = await t.api.get(`${base}/issues/?${query}`, { token: owner.token });
      expect(response.status, query).toBe(422);
    }
    // Parameters nobody asked for are ignored, as in bodies.
    for (const query of ["limit[]=1", "status[x]=1", "unknown=1"]) {
      expect((await t.api.get(`${base}/issues/?${query}`, { token: owner.token })).status, query).toBe(200);
    }
  });
});
