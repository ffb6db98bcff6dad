// What a leaked or orphaned API key can and cannot do, and input the database would otherwise choke on.
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspaceWithRoles, registerUser, startTestApp, type TestApp } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";

const mcpCall = (url: string, key: string, name: string, args: Record<string, unknown>) =>
  fetch(`${url}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "x-api-key": key },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
  });

describe.each(testDialects)("access hardening (%s)", (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(dialect);
  });
  afterAll(() => t.close());

  it("a member's keys stop working everywhere the moment they leave or are removed", async () => {
    const { workspaceId, owner, admin } = await createWorkspaceWithRoles(t.api);
    const ws = `workspaces/${workspaceId}`;
    const key = (await t.api.post(`${ws}/api-keys`, { name: "bob's" }, { token: admin.token })).body.key;
    expect((await mcpCall(t.url, key, "list_issues", {})).status).toBe(200);

    expect((await t.api.delete(`${ws}/members/${admin.user.id}`, { token: owner.token })).status).toBe(204);
    expect((await t.api.get(`${ws}/issues/`, { headers: { "x-api-key": key } })).status).toBe(401);
    expect((await mcpCall(t.url, key, "create_issue", { title: "planted" })).status).toBe(401);
    const keys = await t.db.selectFrom("api_keys").select("id").where("created_by", "=", admin.user.id).execute();
    expect(keys).toEqual([]);
    const issues = await t.api.get(`${ws}/issues/`, { token: owner.token });
    expect(issues.body).toEqual([]);
  });

  it("a key cannot grant access that would outlive it: no member changes, no workspace create or delete", async () => {
    const { workspaceId, owner, member } = await createWorkspaceWithRoles(t.api);
    const ws = `workspaces/${workspaceId}`;
    const headers = {
      "x-api-key": (await t.api.post(`${ws}/api-keys`, { name: "k" }, { token: owner.token })).body.key,
    };
    const mallory = await registerUser(t.api, "mallory");
    const refused = [
      await t.api.post(`${ws}/members`, { user_id: mallory.user.id, role: "owner" }, { headers }),
      await t.api.patch(`${ws}/members/${member.user.id}`, { role: "admin" }, { headers }),
      await t.api.delete(`${ws}/members/${member.user.id}`, { headers }),
      await t.api.post("workspaces/", { name: "Elsewhere" }, { headers }),
      await t.api.delete(ws, { headers }),
    ];
    expect(refused.map((response) => response.status)).toEqual([403, 403, 403, 403, 403]);
    const members = await t.api.get(`${ws}/members`, { token: owner.token });
    expect(members.body.map((m: { user_id: string }) => m.user_id)).not.toContain(mallory.user.id);
    expect((await t.api.get(`${ws}/issues/`, { headers })).status).toBe(200);
  });

  it("refuses impossible calendar dates", async () => {
    const { workspaceId, owner } = await createWorkspaceWithRoles(t.api);
    const create = (due_date: string) =>
      t.api.post(`workspaces/${workspaceId}/issues/`, { title: "Due", due_date }, { token: owner.token });
    expect((await create("2024-02-30")).status).toBe(422);
    expect((await create("2023-02-29")).status).toBe(422);
    expect((await create("2024-02-29")).status).toBe(201);
  });

  it("the platform tools refuse NUL-laden filters as the API does (a validation error naming the field), not a database error", async () => {
    const { workspaceId, owner } = await createWorkspaceWithRoles(t.api);
    const key = (await t.api.post(`workspaces/${workspaceId}/api-keys`, { name: "k" }, { token: owner.token })).body
      .key;
    await t.api.post(`workspaces/${workspaceId}/issues/`, { title: "Visible" }, { token: owner.token });
    for (const [field, args] of [
      ["project_id", { project_id: "\u0000" }],
      ["q", { q: "a\u0000b" }],
      ["assignee_id", { assignee_id: "x\u0000" }],
    ] as const) {
      const response = await mcpCall(t.url, key, "list_issues", args);
      const body: any = await response.json();
      expect(body.result.isError).toBe(true);
      expect(body.result.content[0].text).toMatch(new RegExp(`^Invalid arguments for list_issues: ${field}\\b.*NUL`));
    }
  });
});

describe("login lockout", () => {
  it("failures from one address do not lock the same email out from another address", async () => {
    const t = await startTestApp("sqlite", {
      loginRateLimit: { failuresPerEmail: 2, failuresPerAddress: 100, windowMs: 60_000 },
    });
    try {
      const { user } = await registerUser(t.api, "victim");
      for (let attempt = 0; attempt < 3; attempt++)
        await t.api.post("auth/login", { email: user.email, password: "x" });
      expect((await t.api.post("auth/login", { email: user.email, password: "correct horse battery" })).status).toBe(
        429,
      );
      const fromElsewhere = await new Promise<number>((resolve, reject) => {
        const url = new URL(`${t.url}/api/v1/auth/login`);
        const body = JSON.stringify({ email: user.email, password: "correct horse battery" });
        const req = httpRequest(
          { host: url.hostname, port: url.port, path: url.pathname, method: "POST", localAddress: "127.0.0.2" },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on("error", reject);
        req.setHeader("content-type", "application/json");
        req.end(body);
      });
      expect(fromElsewhere).toBe(200);
    } finally {
      await t.close();
    }
  });
});
