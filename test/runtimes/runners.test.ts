// Runner tokens, runners and runtimes (spec runtimes.md §1-2): tokens shown once and revocable, registration
// idempotent per runner_id, online and offline with their events, the members' lists and the admin's delete.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { FakeRunner, outboxEvents, type RuntimeFixture, startRuntimeFixture } from "./helpers.ts";

describe.each(testDialects)("runners and runtimes (%s)", (dialect) => {
  let f: RuntimeFixture;
  beforeAll(async () => {
    f = await startRuntimeFixture(dialect, { env: { RUNNER_OFFLINE_MS: "400" } });
  });
  afterAll(() => f.close());

  it("an admin makes a runner token shown once; lists show it without the secret; members may not", async () => {
    const created = await f.api.post(`workspaces/${f.ws}/runner-tokens`, { name: "ci" }, { token: f.owner.token });
    expect(created.status).toBe(201);
    expect(created.body.token).toMatch(/^apr_[A-Za-z0-9_-]{40,}$/);
    const listed = await f.api.get(`workspaces/${f.ws}/runner-tokens`, { token: f.admin.token });
    expect(listed.body.map((token: { name: string }) => token.name)).toEqual(["laptop", "ci"]);
    expect(JSON.stringify(listed.body)).not.toContain(created.body.token);
    expect(JSON.stringify(listed.body)).not.toContain("apr_");
    expect(
      (await f.api.post(`workspaces/${f.ws}/runner-tokens`, { name: "x" }, { token: f.member.token })).status,
    ).toBe(403);
    expect((await f.api.get(`workspaces/${f.ws}/runner-tokens`, { token: f.member.token })).status).toBe(403);
    expect((await f.api.post(`workspaces/${f.ws}/runner-tokens`, { name: "" }, { token: f.owner.token })).status).toBe(
      422,
    );
    const stored = await f.t.db.selectFrom("runner_tokens").select("token_hash").execute();
    expect(stored.map((row) => row.token_hash)).not.toContain(created.body.token);
  });

  it("a runner token opens the runner API only: every other path is a 401, and other credentials are 401 there", async () => {
    const token = f.runnerToken;
    for (const path of [`workspaces/${f.ws}/issues/`, `workspaces/${f.ws}/runners`, "workspaces/", "auth/me"]) {
      const response = await f.api.get(path, { token });
      expect(response.status, path).toBe(401);
      expect(response.body.detail).toBe("A runner token works on the runner API only");
    }
    const mcp = await f.api.post("/mcp", { jsonrpc: "2.0", id: 1, method: "tools/list" }, { token });
    expect(mcp.status).toBe(401);
    const asMember = await f.api.post("runner/heartbeat", { runner_id: "x" }, { token: f.member.token });
    expect(asMember.status).toBe(401);
    const none = await f.api.post("runner/heartbeat", { runner_id: "x" });
    expect(none.status).toBe(401);
    const wrong = await f.api.post("runner/heartbeat", { runner_id: "x" }, { token: "apr_not-a-token" });
    expect(wrong.status).toBe(401);
  });

  it("register is idempotent per runner_id: ids stay, fields update, a runtime left out goes offline", async () => {
    const runner = new FakeRunner(f);
    const first = await runner.register([
      { name: "claude", kind: "claude", tags: ["gpu"] },
      { name: "sh", kind: "command" },
    ]);
    expect(first.runner).toMatchObject({ workspace_id: f.ws, name: "box", host: "box.local", status: "online" });
    expect(first.runtimes.map((runtime: { name: string }) => runtime.name)).toEqual(["claude", "sh"]);
    expect(first.runtimes[0]).toMatchObject({
      kind: "claude",
      tags: ["gpu"],
      status: "online",
      max_concurrent_tasks: 1,
      running_tasks: 0,
    });
    const again = await runner.register(
      [{ name: "claude", kind: "claude", tags: ["gpu", "linux"], max_concurrent_tasks: 3 }],
      "box2",
    );
    expect(again.runner.id).toBe(first.runner.id);
    expect(again.runtimes).toHaveLength(1);
    expect(again.runtimes[0]).toMatchObject({
      id: first.runtimes[0].id,
      tags: ["gpu", "linux"],
      max_concurrent_tasks: 3,
    });
    const listed = (await f.api.get(`workspaces/${f.ws}/runtimes?kind=command`, { token: f.member.token })).body;
    expect(listed).toEqual([]);
    const sh = await f.t.db
      .selectFrom("runtimes")
      .selectAll()
      .where("id", "=", first.runtimes[1].id)
      .executeTakeFirst();
    expect(sh?.status).toBe("offline");
    const offline = await outboxEvents(f, "runtime.offline");
    expect(offline.map((event) => event.entity_id)).toContain(first.runtimes[1].id);
    const online = await outboxEvents(f, "runtime.online");
    expect(online.filter((event) => event.entity_id === first.runtimes[0].id)).toHaveLength(1);
    expect(online[0]?.data).toMatchObject({ id: first.runtimes[0].id, name: "claude", status: "online" });
    await runner.call("deregister");
  });

  it("members list runners and runtimes with status, kind and tag filters; bad filters are 422", async () => {
    const runner = new FakeRunner(f);
    await runner.register(
      [
        { name: "codex", kind: "codex", tags: ["linux", "repo-access"] },
        { name: "echo", kind: "command", tags: ["linux"] },
      ],
      "filters",
    );
    const path = `workspaces/${f.ws}/runtimes`;
    const token = f.member.token;
    const names = async (query: string) =>
      ((await f.api.get(`${path}?${query}`, { token })).body as { name: string }[]).map((runtime) => runtime.name);
    expect(await names("status=online&tag=linux")).toEqual(["codex", "echo"]);
    expect(await names("status=online&tag=linux,repo-access")).toEqual(["codex"]);
    expect(await names("status=online&kind=command")).toEqual(["echo"]);
    expect(await names("status=online&tag=lin_x")).toEqual([]);
    const runners = (await f.api.get(`workspaces/${f.ws}/runners?status=online`, { token })).body;
    expect(runners.map((each: { name: string }) => each.name)).toEqual(["filters"]);
    expect((await f.api.get(`${path}?kind=robot`, { token })).status).toBe(422);
    expect((await f.api.get(`workspaces/${f.ws}/runners?status=asleep`, { token })).status).toBe(422);
    expect((await f.api.get(path, { token: f.outsider.token })).status).toBe(403);
    await runner.call("deregister");
  });

  it("deregister is offline at once; silence past RUNNER_OFFLINE_MS is offline too; a call brings it back", async () => {
    const runner = new FakeRunner(f);
    const { runtimes } = await runner.register([{ name: "sh", kind: "command" }], "blinker");
    const runtimeId = runtimes[0].id;
    const statusOf = async () =>
      (await f.api.get(`workspaces/${f.ws}/runtimes`, { token: f.member.token })).body.find(
        (runtime: { id: string }) => runtime.id === runtimeId,
      )?.status;
    expect(await statusOf()).toBe("online");
    expect((await runner.call("deregister")).status).toBe(200);
    expect(await statusOf()).toBe("offline");
    expect((await runner.call("heartbeat")).body).toEqual({ cancel: [] });
    expect(await statusOf()).toBe("online");
    await eventually(async () => (await statusOf()) === "offline", "the silent runner to go offline");
    const offline = (await outboxEvents(f, "runtime.offline")).filter((event) => event.entity_id === runtimeId);
    const online = (await outboxEvents(f, "runtime.online")).filter((event) => event.entity_id === runtimeId);
    expect(offline).toHaveLength(2);
    expect(online).toHaveLength(2);
    const listed = (await f.api.get(`workspaces/${f.ws}/runners`, { token: f.member.token })).body;
    expect(listed.find((each: { name: string }) => each.name === "blinker").status).toBe("offline");
  });

  it("a runner that never registered is told so; bad bodies are 422", async () => {
    const stranger = new FakeRunner(f);
    const response = await stranger.call("heartbeat");
    expect(response.status).toBe(404);
    expect(response.body.detail).toMatch(/register/);
    expect((await f.api.post("runner/heartbeat", {}, { token: f.runnerToken })).status).toBe(422);
    const badKind = await stranger.call("register", {
      name: "x",
      version: "1",
      runtimes: [{ name: "a", kind: "robot" }],
    });
    expect(badKind.status).toBe(422);
  });

  it("an admin deletes a runner with its runtimes; members may not; another workspace's id is a 404", async () => {
    const runner = new FakeRunner(f);
    const { runner: registered } = await runner.register([{ name: "sh", kind: "command" }], "doomed");
    const path = `workspaces/${f.ws}/runners/${registered.id}`;
    expect((await f.api.delete(path, { token: f.member.token })).status).toBe(403);
    expect(
      (await f.api.delete(`workspaces/${f.otherWs}/runners/${registered.id}`, { token: f.outsider.token })).status,
    ).toBe(404);
    expect((await f.api.delete(path, { token: f.admin.token })).status).toBe(204);
    const left = await f.t.db.selectFrom("runtimes").select("id").where("runner_id", "=", registered.id).execute();
    expect(left).toEqual([]);
    expect((await runner.call("heartbeat")).status).toBe(404);
  });

  it("a revoked runner token is a 401 at the runner's next call", async () => {
    const created = await f.api.post(`workspaces/${f.ws}/runner-tokens`, { name: "temp" }, { token: f.admin.token });
    const runner = new FakeRunner(f, created.body.token);
    await runner.register();
    expect(
      (await f.api.delete(`workspaces/${f.ws}/runner-tokens/${created.body.id}`, { token: f.member.token })).status,
    ).toBe(403);
    expect(
      (await f.api.delete(`workspaces/${f.ws}/runner-tokens/${created.body.id}`, { token: f.admin.token })).status,
    ).toBe(204);
    const refused = await runner.call("heartbeat");
    expect(refused.status).toBe(401);
    expect(refused.body.detail).toBe("Invalid or revoked runner token");
    expect(
      (await f.api.delete(`workspaces/${f.ws}/runner-tokens/${created.body.id}`, { token: f.admin.token })).status,
    ).toBe(404);
  });
});
