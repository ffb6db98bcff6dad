import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentStatus } from "../../src/db/enums.ts";
import { changeAgentStatus, getAgent, listAgents } from "../../src/platform/agents/service.ts";
import {
  createWorkspaceWithRoles,
  registerUser,
  startTestApp,
  type TestApp,
  type TestUser,
  type WorkspaceWithRoles,
} from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";
import { PAGE_LIMITS, pageThrough } from "../helpers/page-through.ts";
import { registryWith } from "../helpers/registry.ts";

/** Agents may name only registered tools: these two custom ones, besides the platform's own (create_issue…). */
const customTool = (name: string) => ({
  name,
  description: `The ${name} tool`,
  inputSchema: { type: "object" as const, properties: {} },
  run: async () => name,
});

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/;

describe.each(testDialects)("agents (%s)", (dialect) => {
  let t: TestApp;
  let ws: WorkspaceWithRoles;
  let secondMember: TestUser;
  let otherWorkspaceId: string;
  let otherAgentId: string;
  const agents = () => `workspaces/${ws.workspaceId}/agents/`;

  beforeAll(async () => {
    t = await startTestApp(dialect, { registry: registryWith(customTool("web_search"), customTool("a")) });
    ws = await createWorkspaceWithRoles(t.api);
    secondMember = await registerUser(t.api, "member2");
    await t.api.post(
      `workspaces/${ws.workspaceId}/members`,
      { user_id: secondMember.user.id },
      { token: ws.owner.token },
    );
    const other = await t.api.post("workspaces/", { name: "Elsewhere" }, { token: ws.outsider.token });
    otherWorkspaceId = other.body.id;
    const otherAgent = await t.api.post(
      `workspaces/${otherWorkspaceId}/agents/`,
      { name: "Theirs" },
      { token: ws.outsider.token },
    );
    otherAgentId = otherAgent.body.id;
  });
  afterAll(() => t.close());

  const countAgents = async (workspaceId = ws.workspaceId) =>
    (await t.db.selectFrom("agents").select("id").where("workspace_id", "=", workspaceId).execute()).length;

  it("a member creates an agent with the documented defaults and becomes its owner", async () => {
    const created = await t.api.post(agents(), { name: "  Helper  " }, { token: ws.member.token });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      workspace_id: ws.workspaceId,
      name: "Helper",
      description: null,
      instructions: null,
      model: null,
      tools: [],
      skills: [],
      status: "offline",
      runtime_mode: "local",
      runtime_config: {},
      max_concurrent_tasks: 1,
      monthly_budget_usd: null,
      owner_type: "member",
      owner_id: ws.member.user.id,
      avatar_url: null,
      created_at: expect.stringMatching(TIMESTAMP),
      updated_at: expect.stringMatching(TIMESTAMP),
    });
    for (const path of [`${agents()}${created.body.id}`, `${agents()}${created.body.id}/`]) {
      const fetched = await t.api.get(path, { token: ws.owner.token });
      expect(fetched).toMatchObject({ status: 200, body: created.body });
    }
    const withoutSlash = await t.api.post(`workspaces/${ws.workspaceId}/agents`, { name: "No slash" }, ws.member);
    expect(withoutSlash.status).toBe(201);
    const listed = await t.api.get(`workspaces/${ws.workspaceId}/agents`, { token: ws.member.token });
    expect(listed.body.map((agent: { id: string }) => agent.id)).toEqual(
      expect.arrayContaining([created.body.id, withoutSlash.body.id]),
    );
  });

  it("stores the model, tools, instructions and runtime settings it is given", async () => {
    const body = {
      name: "Researcher",
      description: "Finds things",
      instructions: "Be thorough.",
      model: "openai/gpt-4o-mini",
      tools: ["web_search", "create_issue"],
      status: "idle",
      runtime_mode: "cloud",
      runtime_config: { temperature: 0.2, nested: { deep: [1, 2] } },
      max_concurrent_tasks: 100,
      unknown_field: "ignored",
    };
    const created = await t.api.post(agents(), body, { token: ws.admin.token });
    expect(created.status).toBe(201);
    const { unknown_field: _ignored, ...stored } = body;
    expect(created.body).toMatchObject({ ...stored, owner_type: "member", owner_id: ws.admin.user.id });
    expect(created.body).not.toHaveProperty("unknown_field");
    const fetched = await t.api.get(`${agents()}${created.body.id}`, { token: ws.member.token });
    expect(fetched.body).toEqual(created.body);
  });

  it("answers 422 for bad enums, types and ranges, and stores nothing", async () => {
    const before = await countAgents();
    const bad: [unknown, string[]][] = [
      [{}, ["body", "name"]],
      [{ name: "" }, ["body", "name"]],
      [{ name: "   " }, ["body", "name"]],
      [{ name: 5 }, ["body", "name"]],
      [{ name: "x\u0000y" }, ["body", "name"]],
      [{ name: "x".repeat(201) }, ["body", "name"]],
      [{ name: "A", status: "sleeping" }, ["body", "status"]],
      [{ name: "A", runtime_mode: "edge" }, ["body", "runtime_mode"]],
      [{ name: "A", max_concurrent_tasks: 0 }, ["body", "max_concurrent_tasks"]],
      [{ name: "A", max_concurrent_tasks: 101 }, ["body", "max_concurrent_tasks"]],
      [{ name: "A", max_concurrent_tasks: 1.5 }, ["body", "max_concurrent_tasks"]],
      [{ name: "A", max_concurrent_tasks: "3" }, ["body", "max_concurrent_tasks"]],
      [{ name: "A", tools: "web_search" }, ["body", "tools"]],
      [{ name: "A", tools: [1] }, ["body", "tools", "0"]],
      [{ name: "A", tools: ["has space"] }, ["body", "tools", "0"]],
      [{ name: "A", tools: ["dup", "dup"] }, ["body", "tools"]],
      [{ name: "A", runtime_config: [] }, ["body", "runtime_config"]],
      [{ name: "A", runtime_config: "fast" }, ["body", "runtime_config"]],
      [{ name: "A", model: "gpt-4o" }, ["body", "model"]],
      [{ name: "A", model: 4 }, ["body", "model"]],
      [{ name: "A", owner_type: "robot", owner_id: ws.member.user.id }, ["body", "owner_type"]],
      [{ name: "A", owner_type: "member" }, ["body", "owner_id"]],
      [[{ name: "A" }], ["body"]],
    ];
    for (const [body, loc] of bad) {
      const response = await t.api.post(agents(), body, { token: ws.member.token });
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.body.detail[0].loc, JSON.stringify(body)).toEqual(loc);
    }
    const malformed = await t.api.post(agents(), undefined, { token: ws.member.token, raw: '{"name": "A",' });
    expect(malformed).toMatchObject({ status: 422, body: { detail: [{ type: "json_invalid", loc: ["body"] }] } });
    // httpx sends Content-Type: application/json with Content-Length: 0 on a POST without a body: that is no body.
    const empty = await t.api.post(agents(), undefined, { token: ws.member.token, raw: "" });
    expect(empty).toMatchObject({ status: 422, body: { detail: [{ loc: ["body"] }] } });
    const oversize = await t.api.post(agents(), { name: "Big", instructions: "x".repeat(1024 * 1024) }, ws.member);
    expect(oversize.status).toBe(413);
    expect(await countAgents()).toBe(before);
  });

  it("PATCH is a merge patch: absent unchanged, null clears, null on a required field is 422", async () => {
    const created = await t.api.post(
      agents(),
      {
        name: "Patchy",
        description: "d",
        instructions: "i",
        model: "ollama/llama3",
        tools: ["a"],
        runtime_config: { k: 1 },
      },
      { token: ws.member.token },
    );
    const path = `${agents()}${created.body.id}`;
    const cleared = await t.api.patch(path, { description: null, model: null }, { token: ws.member.token });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({
      name: "Patchy",
      description: null,
      instructions: "i",
      model: null,
      tools: ["a"],
      runtime_config: { k: 1 },
    });
    expect(cleared.body.updated_at > created.body.updated_at).toBe(true);

    for (const field of ["name", "status", "runtime_mode", "tools", "runtime_config", "max_concurrent_tasks"]) {
      const response = await t.api.patch(path, { [field]: null }, { token: ws.member.token });
      expect(response.status, field).toBe(422);
      expect(response.body.detail[0].loc, field).toEqual(["body", field]);
    }
    expect((await t.api.patch(path, { status: "asleep" }, { token: ws.member.token })).status).toBe(422);
    expect((await t.api.patch(path, { max_concurrent_tasks: 101 }, { token: ws.member.token })).status).toBe(422);
    expect((await t.api.patch(path, { owner_type: null }, { token: ws.member.token })).status).toBe(422);

    const changed = await t.api.patch(
      path,
      { status: "working", tools: [], runtime_config: {}, max_concurrent_tasks: 5, runtime_mode: "cloud" },
      { token: ws.member.token },
    );
    expect(changed.body).toMatchObject({
      name: "Patchy",
      instructions: "i",
      status: "working",
      tools: [],
      runtime_config: {},
      max_concurrent_tasks: 5,
      runtime_mode: "cloud",
    });
    const unchanged = await t.api.patch(path, {}, { token: ws.member.token });
    expect(unchanged).toMatchObject({ status: 200, body: changed.body });
  });

  it("only an admin or the agent's owner may change or delete it", async () => {
    const created = await t.api.post(agents(), { name: "Mine" }, { token: ws.member.token });
    const path = `${agents()}${created.body.id}`;
    const forbidden = await t.api.patch(path, { name: "Stolen" }, { token: secondMember.token });
    expect(forbidden).toMatchObject({ status: 403 });
    expect((await t.api.delete(path, { token: secondMember.token })).status).toBe(403);
    expect((await t.api.get(path, { token: secondMember.token })).body.name).toBe("Mine");

    expect((await t.api.patch(path, { name: "Mine, renamed" }, { token: ws.member.token })).status).toBe(200);
    expect((await t.api.patch(path, { description: "by admin" }, { token: ws.admin.token })).status).toBe(200);

    const transferred = await t.api.patch(
      path,
      { owner_type: "member", owner_id: secondMember.user.id },
      { token: ws.admin.token },
    );
    expect(transferred.body).toMatchObject({ owner_type: "member", owner_id: secondMember.user.id });
    expect((await t.api.patch(path, { name: "Now theirs" }, { token: ws.member.token })).status).toBe(403);
    expect((await t.api.patch(path, { name: "Now theirs" }, { token: secondMember.token })).status).toBe(200);

    const noOwner = await t.api.patch(path, { owner_type: null, owner_id: null }, { token: secondMember.token });
    expect(noOwner.body).toMatchObject({ owner_type: null, owner_id: null });
    expect((await t.api.delete(path, { token: secondMember.token })).status).toBe(403);
    expect((await t.api.delete(path, { token: ws.owner.token })).status).toBe(204);
    expect((await t.api.get(path, { token: ws.owner.token })).status).toBe(404);
    expect((await t.api.delete(path, { token: ws.owner.token })).status).toBe(404);

    const own = await t.api.post(agents(), { name: "Short-lived" }, { token: secondMember.token });
    expect((await t.api.delete(`${agents()}${own.body.id}`, { token: secondMember.token })).status).toBe(204);
  });

  it("an owner named in a body must belong to this workspace", async () => {
    const byAgent = await t.api.post(agents(), { name: "Lead" }, { token: ws.admin.token });
    const ownedByAgent = await t.api.post(
      agents(),
      { name: "Sub", owner_type: "agent", owner_id: byAgent.body.id },
      { token: ws.admin.token },
    );
    expect(ownedByAgent).toMatchObject({ status: 201, body: { owner_type: "agent", owner_id: byAgent.body.id } });

    const itself = await t.api.patch(
      `${agents()}${byAgent.body.id}`,
      { owner_type: "agent", owner_id: byAgent.body.id },
      { token: ws.admin.token },
    );
    expect(itself).toMatchObject({ status: 422, body: { detail: [{ loc: ["body", "owner_id"] }] } });

    const before = await countAgents();
    const cases: [Record<string, unknown>, string][] = [
      [{ owner_type: "member", owner_id: ws.outsider.user.id }, "Member not found"],
      [{ owner_type: "member", owner_id: "not-a-uuid" }, "Member not found"],
      [{ owner_type: "agent", owner_id: otherAgentId }, "Agent not found"],
      [{ owner_type: "agent", owner_id: "00000000-0000-4000-8000-000000000000" }, "Agent not found"],
    ];
    for (const [owner, detail] of cases) {
      const created = await t.api.post(agents(), { name: "X", ...owner }, { token: ws.admin.token });
      expect(created, JSON.stringify(owner)).toMatchObject({ status: 404, body: { detail } });
      const patched = await t.api.patch(`${agents()}${byAgent.body.id}`, owner, { token: ws.admin.token });
      expect(patched, JSON.stringify(owner)).toMatchObject({ status: 404, body: { detail } });
    }
    expect(await countAgents()).toBe(before);

    // Deleting the owning agent leaves its agents without an owner rather than pointing at nothing.
    expect((await t.api.delete(`${agents()}${byAgent.body.id}`, { token: ws.admin.token })).status).toBe(204);
    const orphan = await t.api.get(`${agents()}${ownedByAgent.body.id}`, { token: ws.admin.token });
    expect(orphan.body).toMatchObject({ owner_type: null, owner_id: null });
  });

  it("another workspace's agent is not found through this one, and outsiders get 403 first", async () => {
    for (const id of [otherAgentId, "not-a-uuid", "00000000-0000-4000-8000-000000000000", "%00"]) {
      const path = `${agents()}${id}`;
      expect(await t.api.get(path, { token: ws.owner.token }), id).toMatchObject({
        status: 404,
        body: { detail: "Agent not found" },
      });
      expect((await t.api.patch(path, { name: "Hijack" }, { token: ws.owner.token })).status, id).toBe(404);
      expect((await t.api.delete(path, { token: ws.owner.token })).status, id).toBe(404);
    }
    const theirs = await t.api.get(`workspaces/${otherWorkspaceId}/agents/${otherAgentId}`, ws.outsider);
    expect(theirs.body.name).toBe("Theirs");

    const outsider = { token: ws.outsider.token };
    const agentPath = `${agents()}${otherAgentId}`;
    expect((await t.api.get(agents(), outsider)).status).toBe(403);
    expect((await t.api.post(agents(), { name: 5 }, outsider)).status).toBe(403);
    expect((await t.api.patch(agentPath, { status: "bad" }, outsider)).status).toBe(403);
    expect((await t.api.delete(agentPath, outsider)).status).toBe(403);
    expect((await t.api.get("workspaces/%00/agents/", outsider)).status).toBe(403);
    expect((await t.api.get(agents())).status).toBe(401);
    expect((await t.api.post(agents(), { name: 5 })).status).toBe(401);
    expect((await t.api.get(agents(), { token: "garbage" })).status).toBe(401);
  });

  it("agents/ pages to the end with limit 1, 2, 50 and 200; 500 gives at most 200; bad paging is 422", async () => {
    const owner = await registerUser(t.api, "pager");
    const workspace = await t.api.post("workspaces/", { name: "Many agents" }, { token: owner.token });
    const path = `workspaces/${workspace.body.id}/agents/`;
    for (let batch = 0; batch < 205; batch += 25) {
      const creates = [];
      for (let index = batch; index < Math.min(batch + 25, 205); index++) {
        creates.push(t.api.post(path, { name: `Agent ${index}`, status: index % 2 ? "idle" : "offline" }, owner));
      }
      for (const created of await Promise.all(creates)) expect(created.status).toBe(201);
    }
    const expected = (
      await t.db
        .selectFrom("agents")
        .select("id")
        .where("workspace_id", "=", workspace.body.id)
        .orderBy("created_at")
        .orderBy("id")
        .execute()
    ).map((row) => row.id);
    expect(expected).toHaveLength(205);

    for (const limit of PAGE_LIMITS) {
      const all = await pageThrough<{ id: string }>(t.api, path, limit, owner);
      expect(
        all.map((agent) => agent.id),
        `limit ${limit}`,
      ).toEqual(expected);
    }
    const clamped = await t.api.get(`${path}?limit=500`, owner);
    expect(clamped.body).toHaveLength(200);
    expect((await pageThrough<{ id: string }>(t.api, path, 500, owner, 200)).map((agent) => agent.id)).toEqual(
      expected,
    );
    expect((await t.api.get(path, owner)).body).toHaveLength(50);
    expect((await t.api.get(`${path}?offset=205`, owner)).body).toEqual([]);

    for (const query of ["limit=0", "limit=-1", "offset=-1", "limit=abc", "limit=1.5", "status=sleeping"]) {
      const response = await t.api.get(`${path}?${query}`, owner);
      expect(response.status, query).toBe(422);
      expect(response.body.detail[0].loc[0], query).toBe("query");
    }

    const idle = await pageThrough<{ status: string }>(t.api, `${path}?status=idle`, 200, owner);
    expect(idle).toHaveLength(102);
    expect(new Set(idle.map((agent) => agent.status))).toEqual(new Set(["idle"]));
    const both = await pageThrough(t.api, `${path}?status=idle,offline`, 200, owner);
    expect(both).toHaveLength(205);
  });

  it("records agent.created, agent.updated (with the changes) and agent.deleted", async () => {
    const created = await t.api.post(agents(), { name: "Logged" }, { token: ws.member.token });
    const path = `${agents()}${created.body.id}`;
    await t.api.patch(path, { name: "Logged twice", status: "idle", description: null }, { token: ws.member.token });
    await t.api.patch(path, { name: "Logged twice" }, { token: ws.member.token });
    await t.api.delete(path, { token: ws.admin.token });

    const activity = await t.api.get(`workspaces/${ws.workspaceId}/activity?limit=200`, { token: ws.member.token });
    const mine = activity.body.filter((entry: { entity_id: string }) => entry.entity_id === created.body.id);
    expect(mine).toEqual([
      expect.objectContaining({
        action: "agent.deleted",
        entity_type: "agent",
        actor_type: "member",
        actor_id: ws.admin.user.id,
        details: { name: "Logged twice" },
      }),
      expect.objectContaining({
        action: "agent.updated",
        actor_id: ws.member.user.id,
        details: {
          changes: { name: { from: "Logged", to: "Logged twice" }, status: { from: "offline", to: "idle" } },
        },
      }),
      expect.objectContaining({ action: "agent.created", actor_id: ws.member.user.id, details: { name: "Logged" } }),
    ]);
  });

  it("the service API: getAgent, listAgents and changeAgentStatus (which records agent.status_changed)", async () => {
    const created = await t.api.post(agents(), { name: "Runner" }, { token: ws.member.token });
    const agentId: string = created.body.id;
    const actor = { type: "agent" as const, id: agentId };
    const setStatus = (workspaceId: string, status: AgentStatus) =>
      t.db.transaction().execute((trx) => changeAgentStatus(trx, workspaceId, agentId, status, actor));

    expect(await setStatus(ws.workspaceId, "working")).toBe(true);
    expect((await getAgent(t.db, ws.workspaceId, agentId)).status).toBe("working");
    expect(await setStatus(ws.workspaceId, "working")).toBe(false);
    await setStatus(ws.workspaceId, "idle");
    expect((await t.api.get(`${agents()}${agentId}`, { token: ws.member.token })).body.status).toBe("idle");
    expect(await getAgent(t.db, ws.workspaceId, agentId)).toMatchObject({ id: agentId, status: "idle", tools: [] });

    const activity = await t.api.get(`workspaces/${ws.workspaceId}/activity?limit=10`, { token: ws.member.token });
    const changes = activity.body.filter(
      (entry: { entity_id: string; action: string }) =>
        entry.entity_id === agentId && entry.action === "agent.status_changed",
    );
    expect(changes.map((entry: { details: unknown }) => entry.details)).toEqual([
      { from: "working", to: "idle" },
      { from: "offline", to: "working" },
    ]);
    expect(changes[0]).toMatchObject({ actor_type: "agent", actor_id: agentId });

    // Several tasks of one agent changing its status at once: each recorded change starts where the last one ended.
    const targets = ["working", "blocked", "error", "idle", "working", "offline"] as const;
    await Promise.all(targets.map((status) => setStatus(ws.workspaceId, status)));
    const chain = (
      await t.db
        .selectFrom("activity")
        .select("details")
        .where("entity_id", "=", agentId)
        .where("action", "=", "agent.status_changed")
        .orderBy("created_at")
        .orderBy("id")
        .execute()
    ).map((row) => JSON.parse(row.details) as { from: string; to: string });
    for (let index = 1; index < chain.length; index++) expect(chain[index]?.from).toBe(chain[index - 1]?.to);
    const final = await getAgent(t.db, ws.workspaceId, agentId);
    expect(final.status).toBe(chain.at(-1)?.to);

    expect(await setStatus(otherWorkspaceId, "error")).toBe(false);
    expect((await getAgent(t.db, ws.workspaceId, agentId)).status).toBe(final.status);
    await expect(getAgent(t.db, ws.workspaceId, otherAgentId)).rejects.toMatchObject({ statusCode: 404 });
    const firstTwo = await listAgents(t.db, ws.workspaceId, { limit: 2, offset: 0 });
    expect(firstTwo).toHaveLength(2);
    expect(firstTwo[0]?.created_at <= (firstTwo[1]?.created_at ?? "")).toBe(true);
  });
});
