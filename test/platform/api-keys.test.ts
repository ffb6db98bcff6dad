import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashApiKey } from "../../src/auth/api-key-secrets.ts";
import { createWorkspaceWithRoles, startTestApp, type TestApp, type WorkspaceWithRoles } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";
import { pageThrough } from "../helpers/page-through.ts";

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/;

describe.each(testDialects)("API keys (%s)", (dialect) => {
  let t: TestApp;
  let ws: WorkspaceWithRoles;
  let otherWorkspaceId: string;
  const keys = () => `workspaces/${ws.workspaceId}/api-keys`;
  const viaXApiKey = (key: string) => ({ headers: { "x-api-key": key } });
  const viaBearer = (key: string) => ({ headers: { authorization: `Bearer ${key}` } });

  beforeAll(async () => {
    t = await startTestApp(dialect);
    ws = await createWorkspaceWithRoles(t.api);
    // The admin also belongs to a second workspace, which their keys for the first must not reach.
    const other = await t.api.post("workspaces/", { name: "Admin's own" }, { token: ws.admin.token });
    otherWorkspaceId = other.body.id;
  });
  afterAll(() => t.close());

  it("an admin creates a key and sees the secret once; lists show the prefix only", async () => {
    const created = await t.api.post(keys(), { name: "CI" }, { token: ws.admin.token });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: "CI",
      prefix: created.body.key.slice(0, 10),
      created_at: expect.stringMatching(TIMESTAMP),
      last_used_at: null,
      created_by: ws.admin.user.id,
      key: expect.stringMatching(/^ap_[A-Za-z0-9_-]{43}$/),
    });
    const stored = await t.db.selectFrom("api_keys").selectAll().where("id", "=", created.body.id).executeTakeFirst();
    expect(stored?.key_hash).toBe(hashApiKey(created.body.key));
    expect(JSON.stringify(stored)).not.toContain(created.body.key);

    for (const path of [keys(), `${keys()}/`]) {
      const listed = await t.api.get(path, { token: ws.member.token });
      expect(listed.status).toBe(200);
      const { key: _secret, ...shown } = created.body;
      expect(listed.body).toContainEqual(shown);
      const text = JSON.stringify(listed.body);
      expect(text).not.toContain(created.body.key);
      expect(text).not.toContain(stored?.key_hash);
      expect(text).not.toContain("key_hash");
    }
  });

  it("only admins create keys; bad bodies are 422; outsiders 403; no credentials 401", async () => {
    const before = (await t.db.selectFrom("api_keys").select("id").execute()).length;
    expect((await t.api.post(keys(), { name: "Nope" }, { token: ws.member.token })).status).toBe(403);
    expect((await t.api.post(keys(), { name: 5 }, { token: ws.member.token })).status).toBe(403);
    expect((await t.api.post(keys(), { name: "Nope" }, { token: ws.outsider.token })).status).toBe(403);
    expect((await t.api.get(keys(), { token: ws.outsider.token })).status).toBe(403);
    expect((await t.api.post(keys(), { name: "Nope" })).status).toBe(401);
    for (const body of [
      {},
      { name: "" },
      { name: "   " },
      { name: 5 },
      { name: "a\u0000b" },
      { name: "x".repeat(201) },
    ]) {
      const response = await t.api.post(keys(), body, { token: ws.owner.token });
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.body.detail[0].loc).toEqual(["body", "name"]);
    }
    const malformed = await t.api.post(keys(), undefined, { token: ws.owner.token, raw: "{name:" });
    expect(malformed.status).toBe(422);
    expect((await t.db.selectFrom("api_keys").select("id").execute()).length).toBe(before);
    for (const query of ["limit=0", "offset=-1", "limit=x"]) {
      expect((await t.api.get(`${keys()}?${query}`, { token: ws.member.token })).status, query).toBe(422);
    }
  });

  it("a key authenticates X-API-Key and Bearer as its creator, in its own workspace only", async () => {
    const { body: created } = await t.api.post(keys(), { name: "Agent runner" }, { token: ws.admin.token });
    const agentsPath = `workspaces/${ws.workspaceId}/agents/`;
    for (const auth of [viaXApiKey(created.key), viaBearer(created.key)]) {
      const made = await t.api.post(agentsPath, { name: "Made by key" }, auth);
      expect(made.status).toBe(201);
      expect(made.body).toMatchObject({ owner_type: "member", owner_id: ws.admin.user.id });
      expect((await t.api.get(agentsPath, auth)).status).toBe(200);
      expect((await t.api.get(`workspaces/${ws.workspaceId}/activity`, auth)).body[0]).toMatchObject({
        action: "agent.created",
        actor_id: ws.admin.user.id,
      });
      // The creator is a member of the other workspace, but the key is not for it.
      expect((await t.api.get(`workspaces/${otherWorkspaceId}/agents/`, auth)).status).toBe(403);
      expect((await t.api.get(`workspaces/${otherWorkspaceId}`, auth)).status).toBe(403);
      const listed = await t.api.get("workspaces/", auth);
      expect(listed.body.map((w: { id: string }) => w.id)).toEqual([ws.workspaceId]);
    }
    expect((await t.api.get(`workspaces/${otherWorkspaceId}/agents/`, { token: ws.admin.token })).status).toBe(200);

    // last_used_at is written off the request path, at minute precision.
    await expect
      .poll(async () => (await t.api.get(keys(), { token: ws.admin.token })).body.find((k: any) => k.id === created.id))
      .toMatchObject({ last_used_at: expect.stringMatching(TIMESTAMP) });

    for (const wrong of ["ap_not-a-real-key", `${created.key}x`]) {
      expect((await t.api.get(agentsPath, viaXApiKey(wrong))).status).toBe(401);
      expect((await t.api.get(agentsPath, viaBearer(wrong))).status).toBe(401);
    }
  });

  it("a key cannot create or revoke keys, so a leaked key cannot outlive its revocation", async () => {
    const { body: created } = await t.api.post(keys(), { name: "Leaky" }, { token: ws.owner.token });
    for (const auth of [viaXApiKey(created.key), viaBearer(created.key)]) {
      expect((await t.api.post(keys(), { name: "Spawn" }, auth)).status).toBe(403);
      expect((await t.api.delete(`${keys()}/${created.id}`, auth)).status).toBe(403);
      expect((await t.api.get(keys(), auth)).status).toBe(200);
    }
  });

  it("DELETE revokes at once: the key then gets 401 on both headers", async () => {
    const { body: created } = await t.api.post(keys(), { name: "Temporary" }, { token: ws.admin.token });
    const agentsPath = `workspaces/${ws.workspaceId}/agents/`;
    expect((await t.api.get(agentsPath, viaXApiKey(created.key))).status).toBe(200);
    expect((await t.api.delete(`${keys()}/${created.id}`, { token: ws.member.token })).status).toBe(403);
    expect((await t.api.delete(`${keys()}/${created.id}`, { token: ws.owner.token })).status).toBe(204);
    for (const auth of [viaXApiKey(created.key), viaBearer(created.key)]) {
      const response = await t.api.get(agentsPath, auth);
      expect(response).toMatchObject({ status: 401, body: { detail: "Invalid API key" } });
    }
    const listed = await t.api.get(keys(), { token: ws.owner.token });
    expect(listed.body.map((k: { id: string }) => k.id)).not.toContain(created.id);
    expect((await t.api.delete(`${keys()}/${created.id}`, { token: ws.owner.token })).status).toBe(404);
  });

  it("the creator may revoke their own key after losing admin; another workspace's key is not found", async () => {
    const { body: own } = await t.api.post(keys(), { name: "Mine" }, { token: ws.admin.token });
    const { body: foreign } = await t.api.post(
      `workspaces/${otherWorkspaceId}/api-keys`,
      { name: "Theirs" },
      { token: ws.admin.token },
    );
    for (const id of [foreign.id, "not-an-id", "00000000-0000-4000-8000-000000000000", "%00"]) {
      const response = await t.api.delete(`${keys()}/${id}`, { token: ws.owner.token });
      expect(response, id).toMatchObject({ status: 404, body: { detail: "API key not found" } });
    }
    expect((await t.api.get(`workspaces/${otherWorkspaceId}/agents/`, viaXApiKey(foreign.key))).status).toBe(200);

    await t.api.patch(`workspaces/${ws.workspaceId}/members/${ws.admin.user.id}`, { role: "member" }, ws.owner);
    expect((await t.api.post(keys(), { name: "Again" }, { token: ws.admin.token })).status).toBe(403);
    expect((await t.api.delete(`${keys()}/${own.id}`, { token: ws.admin.token })).status).toBe(204);
    await t.api.patch(`workspaces/${ws.workspaceId}/members/${ws.admin.user.id}`, { role: "admin" }, ws.owner);
  });

  it("records api_key.created and api_key.revoked, without the secret", async () => {
    const { body: created } = await t.api.post(keys(), { name: "Audited" }, { token: ws.admin.token });
    await t.api.delete(`${keys()}/${created.id}`, { token: ws.admin.token });
    const feed = await t.api.get(`workspaces/${ws.workspaceId}/activity?limit=5`, { token: ws.member.token });
    expect(feed.body.slice(0, 2)).toEqual([
      expect.objectContaining({
        entity_type: "api_key",
        entity_id: created.id,
        action: "api_key.revoked",
        actor_id: ws.admin.user.id,
        details: { name: "Audited", prefix: created.prefix },
      }),
      expect.objectContaining({
        entity_id: created.id,
        action: "api_key.created",
        details: { name: "Audited", prefix: created.prefix },
      }),
    ]);
    expect(JSON.stringify(feed.body)).not.toContain(created.key);
  });

  it("the key list pages to the end, oldest first", async () => {
    for (const name of ["One", "Two", "Three"]) await t.api.post(keys(), { name }, { token: ws.owner.token });
    const expected = (
      await t.db
        .selectFrom("api_keys")
        .select("id")
        .where("workspace_id", "=", ws.workspaceId)
        .orderBy("created_at")
        .orderBy("id")
        .execute()
    ).map((row) => row.id);
    expect(expected.length).toBeGreaterThanOrEqual(6);
    for (const limit of [1, 2, 50]) {
      const all = await pageThrough<{ id: string }>(t.api, keys(), limit, { token: ws.owner.token });
      expect(all.map((key) => key.id)).toEqual(expected);
    }
  });
});
