// Input a hostile or careless caller sends: empty ids, absurd nesting, NUL bytes, broken Unicode, emails that are not
// emails, ids of other workspaces. Each is a documented 4xx that names the problem, never a 500, and nothing is stored.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDialects } from "../helpers/databases.ts";
import {
  createIssue,
  createLabel,
  createProject,
  insertAgent,
  startWorkspaceFixture,
  type WorkspaceFixture,
} from "../helpers/platform.ts";
import { call, insertApiKey, postJson } from "../mcp/helpers.ts";

const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;

describe.each(testDialects)("input hardening (%s)", (dialect) => {
  let f: WorkspaceFixture;
  const auth = () => ({ token: f.owner.token });
  const issues = (id = "") => `workspaces/${f.ws}/issues/${id}`;

  beforeAll(async () => {
    f = await startWorkspaceFixture(dialect);
  });
  afterAll(async () => f?.t.close());

  const issueCount = async () => (await f.t.db.selectFrom("issues").select("id").execute()).length;

  it("an empty-string id in a body is 404 '<Thing> not found' on create and update, and stores nothing", async () => {
    const issue = await createIssue(f.t.api, f.ws, f.owner.token);
    const cases: [Record<string, unknown>, string][] = [
      [{ project_id: "" }, "Project not found"],
      [{ parent_issue_id: "" }, "Issue not found"],
      [{ assignee_type: "member", assignee_id: "" }, "Member not found"],
      [{ assignee_type: "agent", assignee_id: "" }, "Agent not found"],
    ];
    const before = await issueCount();
    for (const [body, detail] of cases) {
      const created = await f.t.api.post(issues(), { title: "x", ...body }, auth());
      expect(created, JSON.stringify(body)).toMatchObject({ status: 404, body: { detail } });
      const updated = await f.t.api.patch(issues(issue.id), body, auth());
      expect(updated, JSON.stringify(body)).toMatchObject({ status: 404, body: { detail } });
    }
    expect(await issueCount()).toBe(before);
    const row = await f.t.db.selectFrom("issues").selectAll().where("id", "=", issue.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ project_id: null, parent_issue_id: null, assignee_id: null });

    const reply = await f.t.api.post(`${issues(issue.id)}/comments`, { content: "x", parent_id: "" }, auth());
    expect(reply).toMatchObject({ status: 404, body: { detail: "Comment not found" } });
    expect(await f.t.db.selectFrom("comments").select("id").where("issue_id", "=", issue.id).execute()).toEqual([]);

    const project = { title: "x", lead_type: "member", lead_id: "" };
    const led = await f.t.api.post(`workspaces/${f.ws}/projects/`, project, auth());
    expect(led).toMatchObject({ status: 404, body: { detail: "Member not found" } });
    const dependency = { depends_on_issue_id: "", type: "blocks" };
    const depends = await f.t.api.post(`${issues(issue.id)}/dependencies/`, dependency, auth());
    expect(depends).toMatchObject({ status: 404, body: { detail: "Issue not found" } });
    const member = await f.t.api.post(`workspaces/${f.ws}/members`, { user_id: "" }, auth());
    expect(member).toMatchObject({ status: 404, body: { detail: "User not found" } });
  });

  it("ids of another workspace in a body are 404 like every IDOR answer", async () => {
    const theirIssue = await createIssue(f.t.api, f.otherWs, f.outsider.token);
    const theirProject = await createProject(f.t.api, f.otherWs, f.outsider.token);
    const theirLabel = await createLabel(f.t.api, f.otherWs, f.outsider.token, "theirs");
    const theirAgent = await insertAgent(f.t, f.otherWs);
    const mine = await createIssue(f.t.api, f.ws, f.owner.token);
    const cases: [Record<string, unknown>, string][] = [
      [{ parent_issue_id: theirIssue.id }, "Issue not found"],
      [{ project_id: theirProject.id }, "Project not found"],
      [{ assignee_type: "member", assignee_id: f.outsider.user.id }, "Member not found"],
      [{ assignee_type: "agent", assignee_id: theirAgent }, "Agent not found"],
    ];
    for (const [body, detail] of cases) {
      const created = await f.t.api.post(issues(), { title: "x", ...body }, auth());
      expect(created, JSON.stringify(body)).toMatchObject({ status: 404, body: { detail } });
      expect(await f.t.api.patch(issues(mine.id), body, auth())).toMatchObject({ status: 404, body: { detail } });
    }
    const linked = await f.t.api.post(`${issues(mine.id)}/labels/${theirLabel.id}`, undefined, auth());
    expect(linked).toMatchObject({ status: 404, body: { detail: "Label not found" } });
  });

  it(`JSON nested thousands deep is 422 naming the depth limit; 20 levels of settings are fine`, async () => {
    const settings = await f.t.api.patch(`workspaces/${f.ws}`, undefined, {
      ...auth(),
      raw: `{"settings":${nested(6000)}}`,
    });
    expect(settings.status).toBe(422);
    expect(settings.body.detail[0]).toMatchObject({ loc: ["body", "settings", "a", "a"] });
    expect(settings.body.detail[0].msg).toMatch(/deeper than 32 levels/);
    const agent = await f.t.api.post(`workspaces/${f.ws}/agents/`, undefined, {
      ...auth(),
      raw: `{"name":"deep","runtime_config":${nested(6000)}}`,
    });
    expect(agent.status).toBe(422);
    expect(agent.body.detail[0].msg).toMatch(/deeper than 32 levels/);
    const issue = await f.t.api.post(issues(), undefined, {
      ...auth(),
      raw: `{"title":"deep","acceptance_criteria":${"[".repeat(6000)}${"]".repeat(6000)}}`,
    });
    expect(issue.status).toBe(422);
    expect(await f.t.db.selectFrom("agents").select("id").where("name", "=", "deep").execute()).toEqual([]);

    const fine = await f.t.api.patch(`workspaces/${f.ws}`, undefined, { ...auth(), raw: `{"settings":${nested(20)}}` });
    expect(fine.status).toBe(200);
    expect(JSON.stringify(fine.body.settings)).toBe(nested(20));
  });

  it("a NUL in the members path is 404 'Member not found' on every method", async () => {
    const changed = await f.t.api.patch(`workspaces/${f.ws}/members/%00`, { role: "admin" }, auth());
    expect(changed).toMatchObject({ status: 404, body: { detail: "Member not found" } });
    const removed = await f.t.api.delete(`workspaces/${f.ws}/members/%00`, auth());
    expect(removed).toMatchObject({ status: 404, body: { detail: "Member not found" } });
    const nulAndMore = await f.t.api.delete(`workspaces/${f.ws}/members/${f.member.user.id}%00`, auth());
    expect(nulAndMore).toMatchObject({ status: 404, body: { detail: "Member not found" } });
  });

  it("a lone surrogate in any text is 422 naming the field; a real pair is stored unchanged", async () => {
    const issue = await createIssue(f.t.api, f.ws, f.owner.token);
    const cases: [string, string, string, (string | number)[]][] = [
      ["POST", issues(), '{"title":"a\\ud800b"}', ["body", "title"]],
      ["PATCH", issues(issue.id), '{"description":"x\\udfff"}', ["body", "description"]],
      ["POST", `${issues(issue.id)}/comments`, '{"content":"\\udc00 then text"}', ["body", "content"]],
      ["POST", "workspaces/", '{"name":"Team \\ud83d"}', ["body", "name"]],
      ["PATCH", `workspaces/${f.ws}`, '{"settings":{"k\\ud800":1}}', ["body", "settings", "k\ud800"]],
      [
        "POST",
        `workspaces/${f.ws}/agents/`,
        '{"name":"a","runtime_config":{"x":["\\ude00"]}}',
        ["body", "runtime_config", "x", 0],
      ],
      ["POST", `workspaces/${f.ws}/labels`, '{"name":"\\uDBFF"}', ["body", "name"]],
    ];
    for (const [method, path, raw, loc] of cases) {
      const response = await f.t.api.request(method, path, undefined, { ...auth(), raw });
      expect(response.status, raw).toBe(422);
      expect(response.body.detail[0], raw).toMatchObject({ loc, msg: expect.stringMatching(/surrogate/) });
    }
    const stored = await f.t.db.selectFrom("issues").select("title").execute();
    expect(stored.some((row) => /\p{Cs}|\uFFFD/u.test(row.title))).toBe(false);

    const paired = await f.t.api.post(issues(), undefined, { ...auth(), raw: '{"title":"ship it \\ud83d\\ude80"}' });
    expect(paired.status).toBe(201);
    const row = await f.t.db.selectFrom("issues").select("title").where("id", "=", paired.body.id).executeTakeFirst();
    expect(row?.title).toBe("ship it 🚀");
  });

  it("adding a member by something that is not an email address is 422, an unknown address 404", async () => {
    const members = `workspaces/${f.ws}/members`;
    for (const email of ["not an email", "", "a@", "@b.c"]) {
      const response = await f.t.api.post(members, { email }, auth());
      expect(response.status, email).toBe(422);
      expect(response.body.detail[0].loc).toEqual(["body", "email"]);
    }
    const unknown = await f.t.api.post(members, { email: "nobody-here@example.com" }, auth());
    expect(unknown).toMatchObject({ status: 404, body: { detail: "User not found" } });
  });

  it("a limit or offset beyond a safe integer is 422 naming the query parameter on every list", async () => {
    for (const path of [issues(), `workspaces/${f.ws}/projects/`, `workspaces/${f.ws}/members`, "workspaces/"]) {
      for (const query of ["offset=1e20", "limit=1e20", "offset=9223372036854775808", "offset=-1", "limit=0"]) {
        const response = await f.t.api.get(`${path}?${query}`, auth());
        expect(response.status, `${path}?${query}`).toBe(422);
        expect(response.body.detail[0].loc).toEqual(["query", query.split("=")[0]]);
      }
      expect((await f.t.api.get(`${path}?offset=${Number.MAX_SAFE_INTEGER}`, auth())).body).toEqual([]);
    }
  });

  it("through the tool protocol: a huge offset and an empty id are tool errors naming the problem, not SQL", async () => {
    const key = await insertApiKey(f.t.db, f.ws, f.owner.user.id);
    const tool = async (name: string, args: Record<string, unknown>) => {
      const headers = { "x-api-key": key, accept: "application/json, text/event-stream" };
      const response = await postJson(f.t.url, "/mcp", call(1, name, args), headers);
      expect(response.status).toBe(200);
      return response.json().result as { isError?: boolean; content: { text: string }[] };
    };
    for (const args of [{ offset: 1e20 }, { limit: 1e20 }, { offset: 2 ** 63 }, { offset: -1 }, { offset: 1.5 }]) {
      const result = await tool("list_issues", args);
      expect(result.isError, JSON.stringify(args)).toBe(true);
      expect(result.content[0]?.text).toMatch(
        new RegExp(`^Invalid arguments for list_issues: ${Object.keys(args)[0]}:`),
      );
    }
    const far = await tool("list_issues", { offset: Number.MAX_SAFE_INTEGER });
    expect(far.isError).toBeFalsy();

    const created = await tool("create_issue", { title: "x", project_id: "" });
    expect(created).toMatchObject({ isError: true, content: [{ text: "Project not found" }] });
    const parented = await tool("create_issue", { title: "x", parent_issue_id: "" });
    expect(parented).toMatchObject({ isError: true, content: [{ text: "Issue not found" }] });
    const surrogate = await tool("create_issue", { title: "bad \ud800" });
    expect(surrogate.isError).toBe(true);
    expect(surrogate.content[0]?.text).toMatch(/title: .*surrogate/);
  });
});
