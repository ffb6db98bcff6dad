// The operations endpoints a deployment relies on: /health, /ready (database reachable and migrated, 503 while
// draining or when the database is gone), and /metrics in Prometheus text, kept from callers it should not reach.
import { afterEach, describe, expect, it } from "vitest";
import { Drain } from "../../src/ops/drain.ts";
import { SseClient } from "../events/helpers.ts";
import { postAgui, seedRequest } from "../helpers/agui.ts";
import { createWorkspaceWithRoles, startAppOn, startTestApp, type TestApp } from "../helpers/app.ts";
import { createTestDatabase, testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { TestModelServer } from "../helpers/model-server.ts";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start(dialect: (typeof testDialects)[number], options: Parameters<typeof startTestApp>[1] = {}) {
  const t = await startTestApp(dialect, options);
  cleanups.push(() => t.close());
  return t;
}

const get = (t: TestApp, path: string, headers: Record<string, string> = {}) => fetch(`${t.url}${path}`, { headers });

/** One sample's value from the Prometheus text, or undefined when the series is absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const labelText = line.includes("{") ? line.slice(line.indexOf("{") + 1, line.lastIndexOf("}")) : "";
    if (wanted.every((pair) => labelText.split(",").includes(pair))) return Number(line.split(" ").at(-1));
  }
  return undefined;
}

describe.each(testDialects)("operations endpoints (%s)", (dialect) => {
  it("/health says the process is alive, /ready that it can serve, and both are in the OpenAPI document", async () => {
    const t = await start(dialect);
    const health = await get(t, "/health");
    expect([health.status, await health.json()]).toEqual([200, { status: "ok" }]);
    const ready = await get(t, "/ready");
    expect([ready.status, await ready.json()]).toEqual([200, { status: "ready" }]);
    const paths = Object.keys(((await (await get(t, "/openapi.json")).json()) as { paths: object }).paths);
    expect(paths).toEqual(expect.arrayContaining(["/health", "/ready", "/metrics"]));
  });

  it("/ready answers 503 once draining starts, while /health and the API still answer", async () => {
    const drain = new Drain();
    const t = await start(dialect, { drain });
    drain.start();
    const ready = await get(t, "/ready");
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: "draining", detail: "The server is shutting down" });
    expect((await get(t, "/health")).status).toBe(200);
    expect((await t.api.post("auth/register", { email: "late@example.com", password: "long enough" })).status).toBe(
      201,
    );
  });

  it("/metrics counts requests by route pattern and status, with latencies, and tasks by status", async () => {
    const t = await start(dialect);
    const ws = await createWorkspaceWithRoles(t.api);
    const auth = { token: ws.member.token };
    for (const title of ["One", "Two"]) {
      expect((await t.api.post(`workspaces/${ws.workspaceId}/issues/`, { title }, auth)).status).toBe(201);
    }
    expect((await t.api.get(`workspaces/${ws.workspaceId}/issues/`, auth)).status).toBe(200);
    expect((await t.api.get(`workspaces/${ws.workspaceId}/issues/not-an-issue`, auth)).status).toBe(404);
    const agent = await t.api.post(`workspaces/${ws.workspaceId}/agents/`, { name: "Idle" }, { token: ws.owner.token });
    // Assigned while no model is configured: the task is queued or fails, either way it is counted.
    await t.api.post(
      `workspaces/${ws.workspaceId}/issues/`,
      { title: "For the agent", assignee_type: "agent", assignee_id: agent.body.id },
      auth,
    );

    const response = await get(t, "/metrics");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    const route = "/api/v1/workspaces/:ws_id/issues/";
    expect(sample(text, "http_request_duration_seconds_count", { method: "POST", route, status_code: "201" })).toBe(3);
    expect(sample(text, "http_request_duration_seconds_count", { method: "GET", route, status_code: "200" })).toBe(1);
    expect(
      sample(text, "http_request_duration_seconds_count", {
        method: "GET",
        route: "/api/v1/workspaces/:ws_id/issues/:issue_id",
        status_code: "404",
      }),
    ).toBe(1);
    expect(sample(text, "http_request_duration_seconds_bucket", { method: "GET", route, le: "+Inf" })).toBe(1);
    // The raw URL (with the workspace id) never becomes a label.
    expect(text).not.toContain(ws.workspaceId);
    const tasks = ["queued", "running", "succeeded", "failed", "cancelled", "waiting_approval"].map(
      (status) => sample(text, "agent_platform_tasks", { status }) ?? Number.NaN,
    );
    expect(tasks.every((count) => count >= 0)).toBe(true);
    expect(tasks.reduce((sum, count) => sum + count, 0)).toBe(1);
    expect(sample(text, "process_cpu_seconds_total")).toBeGreaterThan(0);
    expect(sample(text, "agent_platform_webhook_backlog_seconds")).toBe(0);
  });

  it("/metrics shows open streams while they are open, event delivery lag, and model requests and tokens", async () => {
    const model = await TestModelServer.start();
    cleanups.push(() => model.close());
    const t = await start(dialect, { env: { OPENAI_BASE_URL: model.url, AGENT_MODEL: "openai/test-model" } });
    const ws = await createWorkspaceWithRoles(t.api);
    const metrics = async () => (await get(t, "/metrics")).text();

    const stream = await SseClient.open(`${t.url}/api/v1/workspaces/${ws.workspaceId}/events/stream`, {
      authorization: `Bearer ${ws.member.token}`,
    });
    expect(stream.status).toBe(200);
    expect(sample(await metrics(), "agent_platform_open_streams", { kind: "events" })).toBe(1);
    await t.api.post(`workspaces/${ws.workspaceId}/issues/`, { title: "Seen live" }, { token: ws.member.token });
    await stream.waitForEvents(1);
    expect(sample(await metrics(), "agent_platform_event_delivery_lag_seconds_count")).toBeGreaterThanOrEqual(1);
    stream.close();
    await eventually(
      async () => sample(await metrics(), "agent_platform_open_streams", { kind: "events" }) === 0,
      "the stream gauge to fall back to 0",
    );

    const run = await postAgui(t.url, seedRequest("thread-1", "run-1", [{ id: "m1", role: "user", content: "Hi" }]));
    expect(run.types.at(-1)).toBe("run_finished");
    const text = await metrics();
    expect(sample(text, "agent_platform_model_requests_total", { model: "openai/test-model" })).toBe(1);
    expect(sample(text, "agent_platform_model_tokens_total", { model: "openai/test-model", direction: "input" })).toBe(
      11,
    );
    expect(sample(text, "agent_platform_model_tokens_total", { model: "openai/test-model", direction: "output" })).toBe(
      7,
    );
    // The run's stream ends with the connection (connection: close): the gauge falls once the client has let go.
    await eventually(
      async () => sample(await metrics(), "agent_platform_open_streams", { kind: "agui" }) === 0,
      "the /agui stream gauge to fall back to 0",
    );
  });

  it("/metrics refuses a request relayed by a proxy, and with METRICS_TOKEN wants that bearer token", async () => {
    const open = await start(dialect);
    for (const header of ["x-forwarded-for", "forwarded", "x-real-ip"]) {
      const relayed = await get(open, "/metrics", { [header]: "203.0.113.9" });
      expect(relayed.status).toBe(403);
      expect(((await relayed.json()) as { detail: string }).detail).toMatch(/loopback callers only/);
    }

    const token = "metrics-token-0123456789";
    const guarded = await start(dialect, { env: { METRICS_TOKEN: token } });
    expect((await get(guarded, "/metrics")).status).toBe(401);
    expect((await get(guarded, "/metrics", { authorization: "Bearer metrics-token-0123456780" })).status).toBe(403);
    expect((await get(guarded, "/metrics", { authorization: "Bearer short" })).status).toBe(403);
    const allowed = await get(guarded, "/metrics", { authorization: `Bearer ${token}`, "x-forwarded-for": "10.0.0.1" });
    expect(allowed.status).toBe(200);
    expect(await allowed.text()).toContain("http_request_duration_seconds");
  });
});

describe.each(testDialects.filter((dialect) => dialect === "postgres"))(
  "readiness without a database (%s)",
  (dialect) => {
    it("/ready answers 503 when the database is gone, /health still 200", async () => {
      const database = await createTestDatabase(dialect);
      const t = await startAppOn(database.url, dialect);
      cleanups.push(async () => {
        await t.close().catch(() => {});
      });
      expect((await get(t, "/ready")).status).toBe(200);
      await database.drop();
      const ready = await get(t, "/ready");
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ status: "unavailable", detail: "The database is out of reach" });
      expect((await get(t, "/health")).status).toBe(200);
    });
  },
);
