// npm run bench -- control [scenario…]
// People in control (spec control.md), each scenario beside a bare baseline in the same run, printing the ratio:
// 1. budgets: pickup latency (an issue's assignment → its task's first model request, in-process worker, instant
//    model double) with a monthly budget on every agent and on the workspace, beside the same with no budgets
//    (target p99 < 50 ms with budgets): the claim's budget check must cost next to nothing;
// 2. usage: `GET usage?group_by=day` over 100,000 runs of this month (seeded directly through the db layer, with their
//    daily rollup) under a few connections, beside a bare Fastify route answering `select 1` from the same database
//    (target p99 < 100 ms); a range that cuts a day (read from the runs, not the rollup) is shown too, without target;
// 3. inbox: with 100,000 items in one person's inbox, `GET me/inbox/count` (p99 < 5 ms) and `GET me/inbox?unread=true`
//    (p99 < 20 ms) beside `GET auth/me`, and a comment naming 50 members (p99 < 50 ms) beside one naming nobody
//    (bench/support/inbox-scenario.ts).
// Each on SQLite, and on PostgreSQL when TEST_DATABASE_URL names a server (BENCH_DIALECT=sqlite|postgres: one only).
// Scenarios are a list (SCENARIOS below): name some to run only those, e.g. `npm run bench -- control usage`.
import { type Insertable, sql } from "kysely";
import type { SqlDialect } from "../src/db/index.ts";
import { openDatabase } from "../src/db/index.ts";
import type { RunsTable, TasksTable } from "../src/db/schema.ts";
import { newId, timestampAt } from "../src/db/values.ts";
import { createTestDatabase } from "../test/helpers/databases.ts";
import { TestModelServer } from "../test/helpers/model-server.ts";
import { createIssues, json, ms, percentile, register, sleep, verdict } from "./support/api.ts";
import { inboxScenario } from "./support/inbox-scenario.ts";
import { fmt, load, startChild } from "./support/processes.ts";

const PICKUP_SAMPLES = 100;
const WARM_UP = 5;
const PICKUP_AGENTS = 5;
const RUNS = 100_000;
const USAGE_AGENTS = 10;
const USAGE_ISSUES = 50;
const BATCH = 500;
const CONNECTIONS = 4;
const DURATION_S = Number(process.env.BENCH_DURATION ?? 5);
/** USD per million tokens: every run costs something, so spend is summed and alerts are checked as in production. */
const PRICE = { input: 1, output: 2 };
/** A budget never reached here: what is measured is checking it, not being stopped by it. */
const BUDGET_USD = 1_000_000;

/** A user and a workspace on a fresh server; `api` is the workspace's base URL. */
async function workspaceOn(base: string, name: string) {
  const { token } = await register(base, "control-bench");
  const ws = (await json("POST", `${base}/api/v1/workspaces/`, token, { name })).id as string;
  return { token, ws, api: `${base}/api/v1/workspaces/${ws}` };
}

/** Resolves when no task is queued, running or waiting and `expected` tasks exist. */
async function allTasksEnded(api: string, token: string, expected: number): Promise<void> {
  for (;;) {
    const open = await json("GET", `${api}/tasks?status=queued,running,waiting_approval&limit=1`, token);
    if (open.length === 0 && (await json("GET", `${api}/tasks?limit=1&offset=${expected - 1}`, token)).length > 0)
      return;
    await sleep(10);
  }
}

// ---- 1. budgets: pickup with and without budgets -------------------------------------------------------------------

/**
 * A fresh server with PICKUP_AGENTS priced agents, with or without a monthly budget on every agent and the workspace;
 * `sample(index)` assigns its index-th issue and answers the time from the PATCH sent to the task's first model
 * request, once the task has ended.
 */
async function pickupServer(model: TestModelServer, dialect: SqlDialect, budgets: boolean) {
  const database = await createTestDatabase(dialect);
  const server = await startChild("bench/support/platform-server.ts", [], {
    DATABASE_URL: database.url,
    OPENAI_BASE_URL: model.url,
    AGENT_MODEL: "openai/bench-model",
  });
  const { token, api } = await workspaceOn(server.url, "Budgets bench");
  if (budgets) await json("PATCH", api, token, { monthly_budget_usd: BUDGET_USD });
  const agents: string[] = [];
  for (let index = 0; index < PICKUP_AGENTS; index++) {
    const agent = await json("POST", `${api}/agents/`, token, {
      name: `Agent ${index}`,
      runtime_config: { price: PRICE },
      ...(budgets && { monthly_budget_usd: BUDGET_USD }),
    });
    agents.push(agent.id);
  }
  const issues = await createIssues(api, token, PICKUP_SAMPLES + WARM_UP);
  return {
    async sample(index: number): Promise<number> {
      model.reset();
      const sent = performance.now();
      await json("PATCH", `${api}/issues/${issues[index]}`, token, {
        assignee_type: "agent",
        assignee_id: agents[index % agents.length],
      });
      while (model.requests.length === 0) await sleep(1);
      const latency = model.requests[0]!.receivedAt - sent;
      await allTasksEnded(api, token, index + 1);
      return latency;
    },
    async close() {
      await server.stop();
      await database.drop();
    },
  };
}

async function budgetsScenario(dialect: SqlDialect): Promise<boolean> {
  const model = await TestModelServer.start();
  model.setDefault({ text: "Triaged: frontend, priority medium." });
  const bareServer = await pickupServer(model, dialect, false);
  const budgetedServer = await pickupServer(model, dialect, true);
  try {
    // Side by side, one sample of each in turn, so both see the same load on the machine.
    const bare: number[] = [];
    const budgeted: number[] = [];
    for (let index = 0; index < PICKUP_SAMPLES + WARM_UP; index++) {
      const [withoutBudgets, withBudgets] = [await bareServer.sample(index), await budgetedServer.sample(index)];
      // The first few warm the servers up (JIT, statement cache, connections).
      if (index < WARM_UP) continue;
      bare.push(withoutBudgets);
      budgeted.push(withBudgets);
    }
    const p99 = percentile(budgeted, 99);
    const ratio = p99 / percentile(bare, 99);
    console.log(
      `\n== budgets (${dialect}): pickup, assignment sent → first model request, ${PICKUP_SAMPLES} samples each`,
    );
    console.log(
      `  no budgets                          p50 ${ms(percentile(bare, 50))}  p99 ${ms(percentile(bare, 99))}`,
    );
    console.log(
      `  a budget on every agent and the ws  p50 ${ms(percentile(budgeted, 50))}  p99 ${ms(p99)}  ` +
        `(target p99 < 50 ms) ${verdict(p99 < 50)}`,
    );
    console.log(`  ratio (p99 with budgets / without) ${fmt(ratio, 2)}`);
    return p99 < 50;
  } finally {
    await bareServer.close();
    await budgetedServer.close();
    await model.close();
  }
}

// ---- 2. usage: GET usage over 100,000 runs -------------------------------------------------------------------------

/** RUNS finished runs (and their tasks) spread over this month so far, and their daily rollup, written directly. */
async function seedRuns(databaseUrl: string, ws: string, agents: string[], issues: string[]): Promise<void> {
  const database = openDatabase(databaseUrl);
  const { db } = database;
  const monthStart = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 1);
  const span = Math.max(Date.now() - monthStart - 60_000, 60_000);
  try {
    for (let start = 0; start < RUNS; start += BATCH) {
      const tasks: Insertable<TasksTable>[] = [];
      const runs: Insertable<RunsTable>[] = [];
      for (let index = start; index < Math.min(RUNS, start + BATCH); index++) {
        const startedAt = timestampAt(monthStart + Math.floor((index / RUNS) * span));
        const finishedAt = timestampAt(monthStart + Math.floor((index / RUNS) * span) + 1500);
        const taskId = newId();
        const runId = newId();
        const agentId = agents[index % agents.length]!;
        const issueId = issues[index % issues.length]!;
        tasks.push({
          id: taskId,
          workspace_id: ws,
          agent_id: agentId,
          issue_id: issueId,
          trigger: "assigned",
          comment_id: null,
          status: "succeeded",
          attempt: 1,
          max_attempts: 3,
          error: null,
          run_id: runId,
          available_at: startedAt,
          created_at: startedAt,
          updated_at: finishedAt,
          started_at: startedAt,
          finished_at: finishedAt,
        });
        runs.push({
          id: runId,
          workspace_id: ws,
          task_id: taskId,
          agent_id: agentId,
          issue_id: issueId,
          status: "succeeded",
          model: index % 3 === 0 ? "anthropic/claude-sonnet-4-5" : "openai/gpt-4o-mini",
          input_tokens: 1000 + (index % 500),
          output_tokens: 200 + (index % 100),
          cache_read_tokens: index % 4 === 0 ? 800 : 0,
          cache_write_tokens: 0,
          cost_usd: 0.001 + (index % 7) * 0.0001,
          error: null,
          comments_seen_until: null,
          started_at: startedAt,
          finished_at: finishedAt,
        });
      }
      await db.transaction().execute(async (trx) => {
        await trx.insertInto("tasks").values(tasks).execute();
        await trx.insertInto("runs").values(runs).execute();
      });
    }
    const day = sql<string>`substr(started_at, 1, 10)`;
    await db
      .insertInto("usage_daily")
      .columns([
        "workspace_id",
        "day",
        "agent_id",
        "model",
        "runs",
        "input_tokens",
        "output_tokens",
        "cache_read_tokens",
        "cache_write_tokens",
        "cost_usd",
      ])
      .expression(
        db
          .selectFrom("runs")
          .select((eb) => [
            "workspace_id",
            day.as("day"),
            "agent_id",
            "model",
            eb.fn.countAll<number>().as("runs"),
            eb.fn.sum<number>("input_tokens").as("input_tokens"),
            eb.fn.sum<number>("output_tokens").as("output_tokens"),
            eb.fn.sum<number>("cache_read_tokens").as("cache_read_tokens"),
            eb.fn.sum<number>("cache_write_tokens").as("cache_write_tokens"),
            eb.fn.sum<number>("cost_usd").as("cost_usd"),
          ])
          .where("workspace_id", "=", ws)
          .groupBy(["workspace_id", day, "agent_id", "model"]),
      )
      .execute();
    if (database.dialect === "postgres") await sql`analyze`.execute(db);
  } finally {
    await database.close();
  }
}

async function usageScenario(dialect: SqlDialect): Promise<boolean> {
  const database = await createTestDatabase(dialect);
  const server = await startChild("bench/support/platform-server.ts", [], { DATABASE_URL: database.url });
  try {
    const { token, ws, api } = await workspaceOn(server.url, "Usage bench");
    const agents: string[] = [];
    for (let index = 0; index < USAGE_AGENTS; index++) {
      agents.push((await json("POST", `${api}/agents/`, token, { name: `Agent ${index}` })).id);
    }
    const issues = await createIssues(api, token, USAGE_ISSUES);
    const seeding = performance.now();
    await seedRuns(database.url, ws, agents, issues);
    const seeded = (performance.now() - seeding) / 1000;

    const byDay = `${api}/usage?group_by=day`;
    const days: any[] = await json("GET", byDay, token);
    const counted = days.reduce((sum, row) => sum + row.runs, 0);
    const monthStart = new Date().toISOString().slice(0, 8);
    // A range starting a second into the month: not whole days, so read from the runs themselves.
    const cutRange = `${byDay}&from=${monthStart}01T00:00:01`;
    const cutCounted = (await json("GET", cutRange, token)).reduce((sum: number, row: any) => sum + row.runs, 0);

    const bare = await startChild("bench/support/bare-select-server.ts", [], { DATABASE_URL: database.url });
    const headers = { authorization: `Bearer ${token}` };
    const options = { connections: CONNECTIONS, duration: DURATION_S };
    await load({ url: byDay, headers, connections: 2, duration: 1 }); // warm-up
    await load({ url: `${bare.url}/select1`, connections: 2, duration: 1 });
    const ours = await load({ url: byDay, headers, ...options });
    const baseline = await load({ url: `${bare.url}/select1`, ...options });
    const cut = await load({ url: cutRange, headers, ...options });
    await bare.stop();

    const pass = ours.p99 < 100 && counted === RUNS && ours.errors + ours.non2xx === 0;
    console.log(
      `\n== usage (${dialect}): GET usage?group_by=day over ${RUNS.toLocaleString("en-US")} runs this month ` +
        `(${days.length} days; seeded in ${fmt(seeded)} s), ${CONNECTIONS} connections, ${DURATION_S} s`,
    );
    console.log(
      `  GET usage (rollup)        ${fmt(ours.requestsPerSecond, 0).padStart(6)} req/s  p50 ${ours.p50} ms  ` +
        `p99 ${ours.p99} ms  (target p99 < 100 ms) ${verdict(ours.p99 < 100)}; runs counted ${counted} ` +
        `${verdict(counted === RUNS)}; errors ${ours.errors + ours.non2xx}`,
    );
    console.log(
      `  bare select 1             ${fmt(baseline.requestsPerSecond, 0).padStart(6)} req/s  p50 ${baseline.p50} ms  ` +
        `p99 ${baseline.p99} ms`,
    );
    console.log(
      `  ratio                     ${fmt(ours.requestsPerSecond / baseline.requestsPerSecond, 3)} of the bare ` +
        `route's req/s; p99 ${fmt(ours.p99 / Math.max(baseline.p99, 1), 1)}× its p99`,
    );
    console.log(
      `  a range cutting a day     ${fmt(cut.requestsPerSecond, 0).padStart(6)} req/s  p50 ${cut.p50} ms  ` +
        `p99 ${cut.p99} ms  (read from the runs; no target); runs counted ${cutCounted}`,
    );
    return pass;
  } finally {
    await server.stop();
    await database.drop();
  }
}

// ---- the scenarios -------------------------------------------------------------------------------------------------

/** Each scenario prints its figures for one dialect and answers whether it met its target. */
interface Scenario {
  name: string;
  run: (dialect: SqlDialect) => Promise<boolean>;
}

const SCENARIOS: Scenario[] = [
  { name: "budgets", run: budgetsScenario },
  { name: "usage", run: usageScenario },
  { name: "inbox", run: inboxScenario },
];

const named = process.argv.slice(3);
const unknown = named.filter((name) => !SCENARIOS.some((scenario) => scenario.name === name));
if (unknown.length > 0) {
  console.error(`unknown scenario ${unknown.join(", ")}; known: ${SCENARIOS.map((each) => each.name).join(", ")}`);
  process.exit(2);
}
const only = process.env.BENCH_DIALECT;
const dialects: SqlDialect[] = [];
if (only !== "postgres") dialects.push("sqlite");
if (only !== "sqlite" && process.env.TEST_DATABASE_URL) dialects.push("postgres");
else if (only !== "sqlite") {
  console.log("(PostgreSQL skipped: set TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test to include it)");
}
let passed = true;
for (const scenario of SCENARIOS.filter((each) => named.length === 0 || named.includes(each.name))) {
  for (const dialect of dialects) passed = (await scenario.run(dialect)) && passed;
}
process.exitCode = passed ? 0 : 1;
