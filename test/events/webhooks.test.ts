import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerUser, startAppOn, startTestApp, type TestApp } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { createIssue } from "../helpers/platform.ts";
import { WebhookReceiver } from "./receiver.ts";

const FAST_RETRIES = { retryDelaysMs: [150, 300, 450], timeoutMs: 400, sweepMs: 100 };

describe.each(testDialects)("webhook deliveries (%s)", (dialect) => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { WEBHOOK_ALLOW_PRIVATE: "true" }, events: { webhooks: FAST_RETRIES } });
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });

  async function workspaceWithHook(name: string, body: Record<string, unknown> = {}) {
    const { token } = await registerUser(t.api, name);
    const ws = (await t.api.post("workspaces/", { name }, { token })).body.id as string;
    const path = `/${name}`;
    const created = await t.api.post(
      `workspaces/${ws}/webhooks`,
      { url: `${receiver.url}${path}`, ...body },
      { token },
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return { token, ws, path, hook: created.body };
  }

  const deliveries = async (ws: string, hookId: string, token: string) =>
    (await t.api.get(`workspaces/${ws}/webhooks/${hookId}/deliveries?limit=200`, { token })).body as any[];

  it("every delivery verifies with standardwebhooks and carries the event as listed, webhook-id = event id", async () => {
    const { token, ws, path, hook } = await workspaceWithHook("verified");
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    const issue = await createIssue(t.api, ws, token, { title: "Signed" });
    await t.api.post(`workspaces/${ws}/issues/${issue.id}/comments`, { content: "Also signed" }, { token });
    await eventually(() => receiver.to(path).length >= 3, "three deliveries");

    const events = (await t.api.get(`workspaces/${ws}/events?after_seq=1`, { token })).body;
    expect(events.map((event: any) => event.type)).toEqual(["webhook.created", "issue.created", "comment.created"]);
    const received = receiver.to(path);
    const verified = received.map((request) => WebhookReceiver.verify(request, hook.secret));
    expect(verified.sort((a, b) => a.seq - b.seq)).toEqual(events);
    for (const request of received) {
      const event = JSON.parse(request.body);
      expect(request.headers).toMatchObject({
        "content-type": "application/json",
        "webhook-id": event.id,
        "webhook-timestamp": expect.stringMatching(/^\d{10}$/),
        "webhook-signature": expect.stringMatching(/^v1,[A-Za-z0-9+/]+=*$/),
      });
      expect(Math.abs(Number(request.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(60);
      expect(() =>
        WebhookReceiver.verify({ ...request, body: request.body.replace("}", ',"x":1}') }, hook.secret),
      ).toThrow();
    }
    await eventually(async () => (await deliveries(ws, hook.id, token)).every((row) => row.status === "succeeded"));
    expect(await deliveries(ws, hook.id, token)).toHaveLength(3);
  });

  it("a hook hears only its types; a disabled hook sends nothing; enabling again starts at the present", async () => {
    const { token, ws, path: allPath, hook: all } = await workspaceWithHook("typed");
    const issuesPath = "/typed-issues";
    const issuesOnly = (
      await t.api.post(
        `workspaces/${ws}/webhooks`,
        { url: `${receiver.url}${issuesPath}`, types: ["issue.*"] },
        { token },
      )
    ).body;
    const offPath = "/typed-off";
    const off = (
      await t.api.post(`workspaces/${ws}/webhooks`, { url: `${receiver.url}${offPath}`, enabled: false }, { token })
    ).body;
    expect(off).toMatchObject({ enabled: false });
    const issue = await createIssue(t.api, ws, token);
    await t.api.post(`workspaces/${ws}/issues/${issue.id}/comments`, { content: "Not an issue event" }, { token });
    await eventually(() => receiver.to(allPath).length >= 4 && receiver.to(issuesPath).length >= 1);
    expect(receiver.to(issuesPath).map((request) => JSON.parse(request.body).type)).toEqual(["issue.created"]);
    expect(receiver.to(offPath)).toEqual([]);
    expect(await deliveries(ws, off.id, token)).toEqual([]);

    await t.api.patch(`workspaces/${ws}/webhooks/${issuesOnly.id}`, { enabled: false }, { token });
    await t.api.patch(`workspaces/${ws}/issues/${issue.id}`, { title: "While off" }, { token });
    const reenabled = await t.api.patch(`workspaces/${ws}/webhooks/${issuesOnly.id}`, { enabled: true }, { token });
    expect(reenabled.body).toMatchObject({ enabled: true, failing_since: null, disabled_reason: null });
    await t.api.patch(`workspaces/${ws}/issues/${issue.id}`, { title: "After" }, { token });
    await eventually(() => receiver.to(issuesPath).length >= 2);
    await eventually(() => receiver.to(allPath).some((request) => request.body.includes('"After"')));
    expect(receiver.to(issuesPath).map((request) => JSON.parse(request.body).data.changes?.title?.to ?? null)).toEqual([
      null,
      "After",
    ]);
    expect(all.enabled).toBe(true);
  });

  it("a receiver answering 500 gets the event again, same webhook-id; the log shows both attempts", async () => {
    const { token, ws, path, hook } = await workspaceWithHook("flaky");
    receiver.answer = (request, before) => (request.path === path && before === 0 ? 500 : 200);
    const issue = await createIssue(t.api, ws, token);
    await eventually(() => receiver.to(path).filter((request) => request.body.includes(issue.id)).length >= 2);
    receiver.answer = () => 200;
    const attempts = receiver.to(path).filter((request) => request.body.includes(issue.id));
    expect(attempts).toHaveLength(2);
    expect(attempts[0]!.headers["webhook-id"]).toBe(attempts[1]!.headers["webhook-id"]);
    expect(attempts[0]!.body).toBe(attempts[1]!.body);
    for (const attempt of attempts)
      expect(WebhookReceiver.verify(attempt, hook.secret)).toMatchObject({ entity_id: issue.id });

    const event = JSON.parse(attempts[0]!.body);
    const log = await eventually(async () => {
      const rows = (await deliveries(ws, hook.id, token)).filter((row) => row.event_id === event.id);
      return rows.length === 2 && rows[0].status === "succeeded" && rows;
    });
    expect(log).toEqual([
      expect.objectContaining({
        event_id: event.id,
        event_type: "issue.created",
        event_seq: event.seq,
        attempt: 2,
        status: "succeeded",
        response_status: 200,
        error: null,
      }),
      expect.objectContaining({ attempt: 1, status: "failed", response_status: 500, error: "HTTP 500" }),
    ]);
    const hookNow = (await t.api.get(`workspaces/${ws}/webhooks/${hook.id}`, { token })).body;
    expect(hookNow).toMatchObject({ enabled: true, failing_since: null });
  });

  it("a receiver that does not answer in time is retried; one that refuses connections runs out of tries", async () => {
    const { token, ws, path, hook } = await workspaceWithHook("slowpoke");
    receiver.answer = (request, before) =>
      request.path === path && before === 0 ? { status: 200, delayMs: 2_000 } : 200;
    const issue = await createIssue(t.api, ws, token);
    const log = await eventually(async () => {
      const rows = (await deliveries(ws, hook.id, token)).filter((row) => row.status !== "pending");
      const ofIssue = rows.filter((row) => row.event_type === "issue.created");
      return ofIssue.some((row) => row.status === "succeeded") && ofIssue;
    });
    receiver.answer = () => 200;
    expect(log.at(-1)).toMatchObject({
      attempt: 1,
      status: "failed",
      response_status: null,
      error: "Timed out after 400 ms",
    });
    expect(log[0]).toMatchObject({ attempt: 2, status: "succeeded" });
    expect(receiver.to(path).filter((request) => request.body.includes(issue.id)).length).toBeGreaterThanOrEqual(2);

    // Nothing listens on a port just closed.
    const closed = await WebhookReceiver.start();
    const deadUrl = `${closed.url}/gone`;
    await closed.close();
    const dead = (await t.api.post(`workspaces/${ws}/webhooks`, { url: deadUrl, types: ["label.created"] }, { token }))
      .body;
    await t.api.post(`workspaces/${ws}/labels`, { name: "nobody hears" }, { token });
    const exhausted = await eventually(async () => {
      const rows = await deliveries(ws, dead.id, token);
      return rows.length === 4 && rows.every((row) => row.status === "failed") && rows;
    });
    expect(exhausted.map((row) => row.attempt)).toEqual([4, 3, 2, 1]);
    for (const row of exhausted)
      expect(row).toMatchObject({ response_status: null, error: "Connection refused (ECONNREFUSED)" });
    const failing = (await t.api.get(`workspaces/${ws}/webhooks/${dead.id}`, { token })).body;
    expect(failing).toMatchObject({ enabled: true, failing_since: expect.any(String) });

    // A manual retry sends it again now, to wherever the hook points by then.
    const revived = await WebhookReceiver.start();
    await t.api.patch(`workspaces/${ws}/webhooks/${dead.id}`, { url: `${revived.url}/back` }, { token });
    const retried = await t.api.post(
      `workspaces/${ws}/webhooks/${dead.id}/deliveries/${exhausted[2].id}/retry`,
      undefined,
      {
        token,
      },
    );
    expect(retried).toMatchObject({
      status: 202,
      body: { attempt: 5, status: "pending", event_id: exhausted[0].event_id },
    });
    await eventually(() => revived.to("/back").length === 1);
    expect(revived.to("/back")[0]!.headers["webhook-id"]).toBe(exhausted[0].event_id);
    await eventually(async () => (await deliveries(ws, dead.id, token))[0].status === "succeeded");
    await revived.close();

    const unknown = "9d1e4c52-8f3b-4e0a-9a51-0c7d2b6e8f10";
    expect(
      (await t.api.post(`workspaces/${ws}/webhooks/${dead.id}/deliveries/${unknown}/retry`, undefined, { token }))
        .status,
    ).toBe(404);
    await t.api.patch(`workspaces/${ws}/webhooks/${dead.id}`, { enabled: false }, { token });
    expect(
      await t.api.post(`workspaces/${ws}/webhooks/${dead.id}/deliveries/${exhausted[0].id}/retry`, undefined, {
        token,
      }),
    ).toMatchObject({ status: 409, body: { detail: "Webhook is disabled; enable it first" } });
  });

  it("rotating the secret signs every later attempt with the new one", async () => {
    const { token, ws, path, hook } = await workspaceWithHook("rotating");
    await eventually(() => receiver.to(path).length >= 1);
    const rotated = await t.api.post(`workspaces/${ws}/webhooks/${hook.id}/rotate-secret`, undefined, { token });
    expect(rotated).toMatchObject({ status: 200, body: { id: hook.id, secret: expect.stringMatching(/^whsec_/) } });
    expect(rotated.body.secret).not.toBe(hook.secret);
    await createIssue(t.api, ws, token);
    await eventually(() => receiver.to(path).some((request) => request.body.includes('"issue.created"')));
    const later = receiver.to(path).find((request) => request.body.includes('"issue.created"'))!;
    expect(WebhookReceiver.verify(later, rotated.body.secret)).toMatchObject({ type: "issue.created" });
    expect(() => WebhookReceiver.verify(later, hook.secret)).toThrow();
  });
});

describe.each(testDialects)("a webhook failing for too long (%s)", (dialect) => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    t = await startTestApp(dialect, {
      env: { WEBHOOK_ALLOW_PRIVATE: "true" },
      events: { webhooks: { ...FAST_RETRIES, retryDelaysMs: [100, 100, 100, 100, 100, 100], disableAfterMs: 250 } },
    });
    receiver = await WebhookReceiver.start();
    receiver.answer = (request) => (request.path === "/down" ? 503 : 200);
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });

  it("is disabled, says why, and the outbox says so with a system event", async () => {
    const { token } = await registerUser(t.api, "failing");
    const ws = (await t.api.post("workspaces/", { name: "Failing" }, { token })).body.id;
    const hook = (await t.api.post(`workspaces/${ws}/webhooks`, { url: `${receiver.url}/down` }, { token })).body;
    const disabled = await eventually(async () => {
      const row = (await t.api.get(`workspaces/${ws}/webhooks/${hook.id}`, { token })).body;
      return row.enabled === false && row;
    });
    expect(disabled.disabled_reason).toMatch(/^Every attempt failed since \d{4}-/);
    const events = (await t.api.get(`workspaces/${ws}/events?types=webhook.*`, { token })).body;
    expect(events.at(-1)).toMatchObject({
      type: "webhook.disabled",
      entity_id: hook.id,
      actor_type: "system",
      actor_id: null,
      data: { url: `${receiver.url}/down`, reason: disabled.disabled_reason },
    });
    const sent = receiver.to("/down").length;
    await t.api.post(`workspaces/${ws}/webhooks`, { url: `${receiver.url}/control`, types: ["issue.*"] }, { token });
    const issue = await createIssue(t.api, ws, token);
    await eventually(() => receiver.to("/control").some((request) => request.body.includes(issue.id)));
    const rows = (await t.api.get(`workspaces/${ws}/webhooks/${hook.id}/deliveries?limit=200`, { token })).body;
    expect(rows.some((row: any) => row.event_type === "issue.created")).toBe(false);
    expect(receiver.to("/down").length).toBe(sent);
  });
});

// Several processes share one delivery queue: every event reaches the receiver, and none twice while all is well.
describe.each(testDialects.filter((dialect) => dialect === "postgres"))(
  "webhooks from two processes (%s)",
  (dialect) => {
    let a: TestApp;
    let b: TestApp;
    let receiver: WebhookReceiver;
    beforeAll(async () => {
      // No backstop sweep during the tests: every delivery here comes from a hint between the processes.
      const events = { webhooks: FAST_RETRIES, sweepMs: 600_000 };
      const options = { env: { WEBHOOK_ALLOW_PRIVATE: "true" }, events };
      a = await startTestApp(dialect, options);
      b = await startAppOn(a.databaseUrl, dialect, options);
      receiver = await WebhookReceiver.start();
    });
    afterAll(async () => {
      await receiver.close();
      await b.close();
      await a.close();
    });

    it("each event is delivered exactly once, whichever process wrote it", async () => {
      const { token } = await registerUser(a.api, "shared");
      const ws = (await a.api.post("workspaces/", { name: "Shared" }, { token })).body.id;
      const hook = (await b.api.post(`workspaces/${ws}/webhooks`, { url: `${receiver.url}/shared` }, { token })).body;
      const issue = await createIssue(a.api, ws, token);
      await Promise.all(
        Array.from({ length: 40 }, (_, index) =>
          (index % 2 === 0 ? a : b).api.post(
            `workspaces/${ws}/issues/${issue.id}/comments`,
            { content: `${index}` },
            { token },
          ),
        ),
      );
      const events = (await a.api.get(`workspaces/${ws}/events?after_seq=1&limit=200`, { token })).body;
      expect(events).toHaveLength(42);
      await eventually(() => receiver.to("/shared").length >= 42, "42 deliveries");
      const ids = receiver.to("/shared").map((request) => request.headers["webhook-id"]);
      expect(new Set(ids).size).toBe(ids.length);
      expect(new Set(ids)).toEqual(new Set(events.map((event: any) => event.id)));
      for (const request of receiver.to("/shared")) WebhookReceiver.verify(request, hook.secret);
    });

    it("a hook created on one process in a workspace the other knew without hooks gets the next event at once", async () => {
      const { token } = await registerUser(a.api, "late");
      const ws = (await a.api.post("workspaces/", { name: "Late hook" }, { token })).body.id;
      // Both processes see events of a workspace with no hook (and so stop looking for hooks on its events).
      const issue = await createIssue(a.api, ws, token);
      await b.api.post(`workspaces/${ws}/issues/${issue.id}/comments`, { content: "before the hook" }, { token });
      await new Promise((resolve) => setTimeout(resolve, 300));
      await b.api.post(`workspaces/${ws}/webhooks`, { url: `${receiver.url}/late` }, { token });
      const comment = await a.api.post(
        `workspaces/${ws}/issues/${issue.id}/comments`,
        { content: "after the hook" },
        { token },
      );
      const deliveredComment = () =>
        receiver
          .to("/late")
          .map((request) => JSON.parse(request.body))
          .find((event) => event.type === "comment.created" && event.entity_id === comment.body.id);
      // Delivered at all means at once: with the sweep off, only the hint between the processes can bring it.
      await eventually(deliveredComment, "the comment's delivery");
    });
  },
);
