import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspaceWithRoles, startTestApp, type TestApp, type WorkspaceWithRoles } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { activityOf, unknownId } from "../helpers/platform.ts";
import { WebhookReceiver } from "./receiver.ts";

describe.each(testDialects)("webhooks API (%s)", (dialect) => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let ws: WorkspaceWithRoles;
  let log = "";
  const path = (suffix = "") => `workspaces/${ws.workspaceId}/webhooks${suffix}`;

  beforeAll(async () => {
    const logStream = new Writable({
      write(chunk, _encoding, done) {
        log += chunk.toString();
        done();
      },
    });
    t = await startTestApp(dialect, {
      env: { WEBHOOK_ALLOW_PRIVATE: "true" },
      logger: { level: "trace", stream: logStream },
      events: { webhooks: { retryDelaysMs: [100], timeoutMs: 500, sweepMs: 100 } },
    });
    receiver = await WebhookReceiver.start();
    ws = await createWorkspaceWithRoles(t.api);
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });

  it("admins create, list, read, change and delete hooks; the secret shows only on create and rotate", async () => {
    const admin = { token: ws.admin.token };
    const created = await t.api.post(
      path(),
      { url: `${receiver.url}/crud`, types: ["issue.*", "comment.created"] },
      admin,
    );
    expect(created).toMatchObject({
      status: 201,
      body: {
        id: expect.any(String),
        workspace_id: ws.workspaceId,
        url: `${receiver.url}/crud`,
        types: ["issue.*", "comment.created"],
        enabled: true,
        failing_since: null,
        disabled_reason: null,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        secret: expect.stringMatching(/^whsec_/),
      },
    });
    const { secret, ...shown } = created.body;
    for (const listPath of [path(), path("/")]) {
      expect(await t.api.get(listPath, admin)).toMatchObject({ status: 200, body: [shown] });
    }
    expect(await t.api.get(path(`/${shown.id}`), admin)).toEqual(expect.objectContaining({ status: 200, body: shown }));
    const patched = await t.api.patch(path(`/${shown.id}`), { types: [] }, admin);
    expect(patched.body).toMatchObject({ types: [], enabled: true });
    expect(patched.body).not.toHaveProperty("secret");
    const rotated = await t.api.post(path(`/${shown.id}/rotate-secret`), undefined, admin);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    await eventually(() => receiver.to("/crud").length >= 2, "deliveries of the hook's own events");
    const deliveries = await t.api.get(path(`/${shown.id}/deliveries`), admin);
    expect(deliveries.status).toBe(200);
    expect(deliveries.body[0]).not.toHaveProperty("secret");

    const activity = await activityOf(t, ws.workspaceId);
    const logged = activity.filter((row) => row.entity_type === "webhook");
    expect(logged.map((row) => row.action)).toEqual(["webhook.created", "webhook.updated", "webhook.secret_rotated"]);
    expect(logged[1]!.details).toEqual({ changes: { types: { from: ["issue.*", "comment.created"], to: [] } } });

    expect((await t.api.delete(path(`/${shown.id}`), admin)).status).toBe(204);
    expect((await t.api.get(path(`/${shown.id}`), admin)).status).toBe(404);
    expect((await t.api.get(path(`/${shown.id}/deliveries`), admin)).status).toBe(404);

    // Neither secret appears in any response other than the two, nor in the outbox, the activity or the log.
    const everything = JSON.stringify([
      (await t.api.get(path(), admin)).body,
      (await t.api.get(`workspaces/${ws.workspaceId}/events?limit=200`, admin)).body,
      (await t.api.get(`workspaces/${ws.workspaceId}/activity?limit=200`, admin)).body,
      deliveries.body,
    ]);
    for (const value of [secret, rotated.body.secret]) {
      expect(everything).not.toContain(value);
      expect(everything).not.toContain(value.slice(6));
      expect(log).not.toContain(value.slice(6));
    }
    expect(log).toContain('"url":"/api/v1/workspaces/');
  });

  it("members, outsiders and API keys are refused in the documented order; bad input is 422; other ids are 404", async () => {
    const hook = (await t.api.post(path(), { url: `${receiver.url}/guarded` }, { token: ws.owner.token })).body;
    const key = (await t.api.post(`workspaces/${ws.workspaceId}/api-keys`, { name: "k" }, { token: ws.admin.token }))
      .body.key;
    const routes: [string, string, unknown?][] = [
      ["POST", path(), { url: `${receiver.url}/x` }],
      ["GET", path()],
      ["GET", path(`/${hook.id}`)],
      ["PATCH", path(`/${hook.id}`), { enabled: false }],
      ["DELETE", path(`/${hook.id}`)],
      ["POST", path(`/${hook.id}/rotate-secret`)],
      ["GET", path(`/${hook.id}/deliveries`)],
      ["POST", path(`/${hook.id}/deliveries/${unknownId()}/retry`)],
    ];
    for (const [method, route, body] of routes) {
      expect((await t.api.request(method, route, body)).status, `${method} ${route} anonymous`).toBe(401);
      expect((await t.api.request(method, route, body, { token: ws.member.token })).status, `${method} member`).toBe(
        403,
      );
      expect(
        (await t.api.request(method, route, body, { token: ws.outsider.token })).status,
        `${method} outsider`,
      ).toBe(403);
    }
    // A key may look, not point the workspace's events somewhere new.
    for (const [method, route, body] of [routes[0]!, routes[3]!, routes[5]!]) {
      const response = await t.api.request(method, route, body, { headers: { "x-api-key": key } });
      expect(response.status, `${method} ${route} with an API key`).toBe(403);
    }
    expect((await t.api.get(path(), { headers: { "x-api-key": key } })).status).toBe(200);

    for (const body of [
      {},
      { url: "not a url" },
      { url: "ftp://example.com/x" },
      { url: `${receiver.url}/x`, types: ["Bad Type"] },
      { url: `${receiver.url}/x`, types: "issue.created" },
      { url: `${receiver.url}/x`, enabled: "yes" },
    ]) {
      const response = await t.api.post(path(), body, { token: ws.admin.token });
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.body.detail[0].loc[0]).toBe("body");
    }
    expect((await t.api.patch(path(`/${hook.id}`), { url: null }, { token: ws.admin.token })).status).toBe(422);

    const other = await createWorkspaceWithRoles(t.api);
    const foreign = (
      await t.api.post(
        `workspaces/${other.workspaceId}/webhooks`,
        { url: `${receiver.url}/f` },
        { token: other.owner.token },
      )
    ).body;
    for (const [method, route, body] of [
      ["GET", path(`/${foreign.id}`)],
      ["PATCH", path(`/${foreign.id}`), { enabled: false }],
      ["DELETE", path(`/${foreign.id}`)],
      ["POST", path(`/${foreign.id}/rotate-secret`)],
      ["GET", path(`/${foreign.id}/deliveries`)],
      ["GET", path("/not-a-uuid")],
    ] as [string, string, unknown?][]) {
      expect(await t.api.request(method, route, body, { token: ws.owner.token }), `${method} ${route}`).toMatchObject({
        status: 404,
        body: { detail: "Webhook not found" },
      });
    }
    const foreignDelivery = await eventually(async () => {
      const rows = (
        await t.api.get(`workspaces/${other.workspaceId}/webhooks/${foreign.id}/deliveries`, {
          token: other.owner.token,
        })
      ).body;
      return rows[0];
    });
    expect(
      (
        await t.api.post(path(`/${hook.id}/deliveries/${foreignDelivery.id}/retry`), undefined, {
          token: ws.owner.token,
        })
      ).body,
    ).toEqual({ detail: "Delivery not found" });
  });
});
