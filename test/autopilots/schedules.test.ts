// Schedules on a running server (seconds-granular crons keep this fast): fires on time, in the trigger's zone, and
// after a restart across missed fire times exactly one catch-up fire, for the latest of them.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createWorkspaceWithRoles, startAppOn, type TestApp } from "../helpers/app.ts";
import { createTestDatabase, type TestDatabase, testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { insertAgent } from "../helpers/platform.ts";
import { type AutopilotFixture, autopilotBody, createAutopilot, startAutopilotFixture } from "./helpers.ts";

const everyTwoSeconds = { kind: "schedule", cron: "*/2 * * * * *", timezone: "Asia/Tokyo" };
/** The fire time a schedule run was claimed for. */
const fireTimeOf = (claimKey: string | null) => String(claimKey).split(":").slice(2).join(":");

describe.each(testDialects)("schedules (%s)", (dialect) => {
  let f: AutopilotFixture;

  beforeAll(async () => {
    f = await startAutopilotFixture(dialect);
  });
  afterAll(() => f.t.close());

  it("a seconds cron fires on its fire times, one issue each, with {{date}} in the trigger's zone", async () => {
    const autopilot = await createAutopilot(
      f.t.api,
      f.ws,
      f.member.token,
      autopilotBody(f.agentId, {
        overlap: "allow",
        issue: { title: "Tick {{date}} {{trigger}}" },
        triggers: [everyTwoSeconds],
      }),
    );
    expect(autopilot.next_fire_at).toMatch(/:\d[02468]\.000000$/);
    const runs = await eventually(async () => {
      const listed = (
        await f.t.api.get(`workspaces/${f.ws}/autopilots/${autopilot.id}/runs`, { token: f.member.token })
      ).body;
      return listed.length >= 2 && listed;
    }, "two scheduled fires");
    expect(runs.slice(0, 2)).toMatchObject([
      { trigger_kind: "schedule", status: "issue_created" },
      { trigger_kind: "schedule", status: "issue_created" },
    ]);
    const stored = await f.t.db
      .selectFrom("autopilot_runs")
      .select(["claim_key", "issue_id"])
      .where("autopilot_id", "=", autopilot.id)
      .orderBy("created_at")
      .execute();
    const times = stored.map((run) => Date.parse(fireTimeOf(run.claim_key)));
    // On fire times, each once (a pass that starts late on a loaded machine fires only the latest time it finds due).
    expect((times[1]! - times[0]!) % 2_000).toBe(0);
    expect(times[1]!).toBeGreaterThan(times[0]!);
    const issue = (await f.t.api.get(`workspaces/${f.ws}/issues/${stored[0]!.issue_id}`, { token: f.member.token }))
      .body;
    const tokyoDate = new Date(times[0]! + 9 * 3_600_000).toISOString().slice(0, 10);
    expect(issue.title).toBe(`Tick ${tokyoDate} schedule`);
    const read = (await f.t.api.get(`workspaces/${f.ws}/autopilots/${autopilot.id}`, { token: f.member.token })).body;
    expect(Date.parse(`${read.next_fire_at}Z`)).toBeGreaterThan(times.at(-1)!);
    expect(read.last_fired_at).not.toBeNull();
    const paused = await f.t.api.patch(
      `workspaces/${f.ws}/autopilots/${autopilot.id}`,
      { enabled: false },
      {
        token: f.member.token,
      },
    );
    expect(paused.body.next_fire_at).toBeNull();
  });
});

describe.each(testDialects)("a schedule created through the API (%s)", (dialect) => {
  let f: AutopilotFixture;

  beforeAll(async () => {
    f = await startAutopilotFixture(dialect);
  });
  afterAll(() => f.t.close());

  it("wakes the scheduler through its event (asleep for a minute with nothing due): it fires on its first time", async () => {
    const autopilot = await createAutopilot(
      f.t.api,
      f.ws,
      f.member.token,
      autopilotBody(f.agentId, { overlap: "allow", triggers: [everyTwoSeconds] }),
    );
    const runs = await eventually(async () => {
      const listed = (
        await f.t.api.get(`workspaces/${f.ws}/autopilots/${autopilot.id}/runs`, { token: f.member.token })
      ).body;
      return listed.length >= 1 && listed;
    }, "the first scheduled fire");
    expect(runs[0]).toMatchObject({ trigger_kind: "schedule", status: "issue_created" });
  });
});

describe.each(testDialects)("a restart across missed fire times (%s)", (dialect) => {
  let database: TestDatabase;
  let app: TestApp | undefined;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });
  afterAll(() => database.drop());

  it("fires once on start, for the latest missed fire time only", async () => {
    const env = { AGENT_WORKERS: "0" };
    app = await startAppOn(database.url, dialect, { env });
    const { workspaceId: ws, member } = await createWorkspaceWithRoles(app.api);
    const agentId = await insertAgent(app, ws);
    const autopilot = await createAutopilot(
      app.api,
      ws,
      member.token,
      autopilotBody(agentId, { overlap: "allow", triggers: [everyTwoSeconds] }),
    );
    const runsOf = (db: TestApp["db"]) =>
      db
        .selectFrom("autopilot_runs")
        .select(["claim_key", "created_at"])
        .where("autopilot_id", "=", autopilot.id)
        .orderBy("created_at")
        .execute();
    const first = app;
    await eventually(async () => (await runsOf(first.db)).length >= 1, "a first scheduled fire");
    await app.close();
    app = undefined;

    // Down for at least two fire times.
    const stoppedAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 4_500));
    const restartedAt = Date.now();
    app = await startAppOn(database.url, dialect, { env });
    const second = app;
    const runs = await eventually(async () => {
      const all = await runsOf(second.db);
      return all.some((run) => Date.parse(fireTimeOf(run.claim_key)) > stoppedAt) && all;
    }, "the catch-up fire");
    const missed = runs
      .map((run) => Date.parse(fireTimeOf(run.claim_key)))
      .filter((time) => time > stoppedAt && time <= restartedAt);
    // Two or more fire times passed while it was down; exactly one fired, the latest of them.
    expect(missed).toHaveLength(1);
    expect(restartedAt - missed[0]!).toBeLessThan(2_000);
  });
});
