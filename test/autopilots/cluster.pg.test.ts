// Three `serve` processes on one PostgreSQL, each with its own scheduler: a seconds schedule makes exactly one issue
// per fire time, none missed, none twice.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerUser } from "../helpers/app.ts";
import { type Cluster, startCluster } from "../helpers/cluster.ts";
import { createTestDatabase, type TestDatabase, testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { needs } from "../helpers/system-tools.ts";

const postgres = testDialects.filter((dialect) => dialect === "postgres");

describe.each(postgres)("a schedule on three processes (%s)", needs("haproxy"), (dialect) => {
  let database: TestDatabase;
  let cluster: Cluster;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    cluster = await startCluster({ databaseUrl: database.url, serveCount: 3, env: { AGENT_WORKERS: "0" } });
  }, 300_000);

  afterAll(async () => {
    await cluster?.close();
    await database?.drop();
  });

  it("fires each fire time once: one issue per fire time, consecutive, whichever process got there", async () => {
    const api = cluster.proxy.api;
    const { token } = await registerUser(api, "owner");
    const ws = (await api.post("workspaces/", { name: "Cluster" }, { token })).body.id;
    const agent = await api.post(`workspaces/${ws}/agents`, { name: "Scribe" }, { token });
    expect(agent.status, JSON.stringify(agent.body)).toBe(201);
    const created = await api.post(
      `workspaces/${ws}/autopilots`,
      {
        name: "Every two seconds",
        agent_id: agent.body.id,
        overlap: "allow",
        issue: { title: "Tick {{datetime}}" },
        triggers: [{ kind: "schedule", cron: "*/2 * * * * *" }],
      },
      { token },
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const runsPath = `workspaces/${ws}/autopilots/${created.body.id}/runs?limit=200`;
    await eventually(async () => (await api.get(runsPath, { token })).body.length >= 5, "five scheduled fires", 30_000);
    await api.patch(`workspaces/${ws}/autopilots/${created.body.id}`, { enabled: false }, { token });
    const runs: { status: string; issue_id: string; trigger_kind: string }[] = (await api.get(runsPath, { token }))
      .body;
    expect(runs.every((run) => run.status === "issue_created" && run.trigger_kind === "schedule")).toBe(true);
    const issues = (await api.get(`workspaces/${ws}/issues?limit=200`, { token })).body;
    const titles: string[] = issues.map((issue: { title: string }) => issue.title);
    // One issue per run, one per fire time; the fire times are two seconds apart without a gap.
    expect(new Set(runs.map((run) => run.issue_id)).size).toBe(runs.length);
    expect(new Set(titles).size).toBe(titles.length);
    expect(titles.length).toBe(runs.length);
    const times = titles.map((title) => Date.parse(title.slice("Tick ".length))).sort((a, b) => a - b);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBe(2_000);
  }, 120_000);
});
