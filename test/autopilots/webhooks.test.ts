// Webhook triggers: a secret URL shown once (stored hashed), rotation, any JSON body as {{payload.…}}, and an
// Idempotency-Key that makes repeats (concurrent ones too) answer the first call's run without firing again.
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDialects } from "../helpers/databases.ts";
import { type AutopilotFixture, autopilotBody, createAutopilot, startAutopilotFixture } from "./helpers.ts";

describe.each(testDialects)("autopilot webhooks (%s)", (dialect) => {
  let f: AutopilotFixture;
  const logLines: string[] = [];
  const hookPath = (url: string) => new URL(url).pathname;

  beforeAll(async () => {
    const stream = new Writable({
      write(chunk, _encoding, done) {
        logLines.push(String(chunk));
        done();
      },
    });
    f = await startAutopilotFixture(dialect, { logger: { level: "info", stream } });
  });
  afterAll(() => f.t.close());

  async function webhookAutopilot(overrides: Record<string, unknown> = {}) {
    return createAutopilot(
      f.t.api,
      f.ws,
      f.member.token,
      autopilotBody(f.agentId, {
        overlap: "allow",
        issue: {
          title: "Alert: {{payload.alert.name}}",
          description: "severity {{payload.severity}} {{payload.nope}}",
        },
        triggers: [{ kind: "schedule", cron: "0 0 1 1 *" }, { kind: "webhook" }],
        ...overrides,
      }),
    );
  }

  it("the URL and token are shown once, stored only hashed; a call fires with the body as payload", async () => {
    const autopilot = await webhookAutopilot();
    const trigger = autopilot.triggers[1];
    expect(trigger.url).toBe(`${f.t.url}/api/v1/autopilot-hooks/${trigger.token}`);
    const read = (await f.t.api.get(`workspaces/${f.ws}/autopilots/${autopilot.id}`, { token: f.member.token })).body;
    expect(read.triggers[1]).toEqual({ kind: "webhook" });
    const stored = JSON.stringify(await f.t.db.selectFrom("autopilot_hook_tokens").selectAll().execute());
    expect(stored).not.toContain(trigger.token);

    const answer = await f.t.api.post(hookPath(trigger.url), { alert: { name: "{{date}} disk full" }, severity: 2 });
    expect(answer).toMatchObject({ status: 202, body: { status: "accepted", run_id: expect.any(String) } });
    const runs = (await f.t.api.get(`workspaces/${f.ws}/autopilots/${autopilot.id}/runs`, { token: f.member.token }))
      .body;
    expect(runs).toMatchObject([{ id: answer.body.run_id, trigger_kind: "webhook", status: "issue_created" }]);
    const issue = (await f.t.api.get(`workspaces/${f.ws}/issues/${runs[0].issue_id}`, { token: f.member.token })).body;
    expect(issue).toMatchObject({ title: "Alert: {{date}} disk full", description: "severity 2 " });
    // The request log names the route, never the token.
    const logged = logLines.filter((line) => line.includes("autopilot-hooks"));
    expect(logged.length).toBeGreaterThan(0);
    expect(logged.join("")).not.toContain(trigger.token);
    expect(logged.join("")).toContain("/api/v1/autopilot-hooks/:token");
  });

  it("unknown, malformed and rotated tokens are 404; the new URL works", async () => {
    const autopilot = await webhookAutopilot();
    const old = autopilot.triggers[1].url;
    expect((await f.t.api.post("/api/v1/autopilot-hooks/aph_nope", {})).status).toBe(404);
    expect((await f.t.api.post(`/api/v1/autopilot-hooks/aph_${"A".repeat(43)}`, {})).status).toBe(404);
    const path = `workspaces/${f.ws}/autopilots/${autopilot.id}/triggers`;
    expect((await f.t.api.post(`${path}/1/rotate`, undefined, { token: f.outsider.token })).status).toBe(403);
    expect((await f.t.api.post(`${path}/0/rotate`, undefined, { token: f.member.token })).status).toBe(422);
    expect((await f.t.api.post(`${path}/7/rotate`, undefined, { token: f.member.token })).status).toBe(404);
    const rotated = await f.t.api.post(`${path}/1/rotate`, undefined, { token: f.member.token });
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.triggers[1].url;
    expect(fresh).not.toBe(old);
    expect((await f.t.api.post(hookPath(old), {})).status).toBe(404);
    expect((await f.t.api.post(hookPath(fresh), {})).status).toBe(202);
    // Replacing the triggers keeps a webhook's token where it stays a webhook.
    const patched = await f.t.api.patch(
      `workspaces/${f.ws}/autopilots/${autopilot.id}`,
      { triggers: [{ kind: "webhook" }, { kind: "webhook" }] },
      { token: f.member.token },
    );
    expect(patched.body.triggers[0].url).toEqual(expect.any(String));
    expect(patched.body.triggers[1].url).toBeUndefined();
    expect((await f.t.api.post(hookPath(fresh), {})).status).toBe(202);
    expect((await f.t.api.post(hookPath(patched.body.triggers[0].url), {})).status).toBe(202);
  });

  it("an Idempotency-Key repeated, even concurrently, answers 200 duplicate with the first run and fires once", async () => {
    const autopilot = await webhookAutopilot();
    const url = hookPath(autopilot.triggers[1].url);
    const headers = { "idempotency-key": "alert-42" };
    const answers = await Promise.all(Array.from({ length: 8 }, () => f.t.api.post(url, { n: 1 }, { headers })));
    const accepted = answers.filter((answer) => answer.status === 202);
    expect(accepted).toHaveLength(1);
    const duplicates = answers.filter((answer) => answer.status === 200);
    expect(duplicates).toHaveLength(7);
    for (const duplicate of duplicates) {
      expect(duplicate.body).toEqual({ status: "duplicate", run_id: accepted[0]!.body.run_id });
    }
    expect((await f.t.api.post(url, {}, { headers: { "idempotency-key": "alert-43" } })).status).toBe(202);
    const runs = (await f.t.api.get(`workspaces/${f.ws}/autopilots/${autopilot.id}/runs`, { token: f.member.token }))
      .body;
    expect(runs).toHaveLength(2);
  });

  it("a key older than 24 hours fires again", async () => {
    const autopilot = await webhookAutopilot();
    const url = hookPath(autopilot.triggers[1].url);
    const headers = { "idempotency-key": "daily" };
    const first = await f.t.api.post(url, {}, { headers });
    await f.t.db
      .updateTable("autopilot_runs")
      .set({ created_at: "2020-01-01T00:00:00.000000" })
      .where("id", "=", first.body.run_id)
      .execute();
    const again = await f.t.api.post(url, {}, { headers });
    expect(again.status).toBe(202);
    expect(again.body.run_id).not.toBe(first.body.run_id);
    expect((await f.t.api.post(url, {}, { headers })).body).toEqual({ status: "duplicate", run_id: again.body.run_id });
  });

  it("overlap skip answers 202 skipped; a disabled autopilot's hook is skipped too; bodies over 256 KiB are 413", async () => {
    const autopilot = await webhookAutopilot({ overlap: "skip" });
    const url = hookPath(autopilot.triggers[1].url);
    expect((await f.t.api.post(url, {})).body.status).toBe("accepted");
    expect((await f.t.api.post(url, {})).body).toMatchObject({ status: "skipped" });
    await f.t.api.patch(`workspaces/${f.ws}/autopilots/${autopilot.id}`, { enabled: false }, { token: f.member.token });
    const paused = await f.t.api.post(url, {});
    expect(paused).toMatchObject({ status: 202, body: { status: "skipped" } });
    expect((await f.t.api.post(url, { big: "x".repeat(257 * 1024) })).status).toBe(413);
    expect((await f.t.api.post(url, undefined, { raw: "{not json" })).status).toBe(422);
    expect((await f.t.api.post(url, "just a string")).status).toBe(202);
  });
});
