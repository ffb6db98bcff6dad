// npm run bench -- work
// Agents at work against the model double (running in this process, so its clock is ours), side by side in one run:
// 1. pickup latency on an idle server: an issue's assignment → the first model request of its task, p50/p99
//    (target p99 < 50 ms), timed from the PATCH being sent (so it includes the assignment's own request) and, as a
//    lower bound, from its answer;
// 2. 1,000 tasks over 20 agents queued at once (issues assigned while no process works, then a server starts):
//    every task succeeds, each run exactly once, and the throughput (first task started → last task finished, by the
//    tasks' own times) beside the same 1,000 runs started directly through the agent runtime, AGENT_WORKERS at once
//    (bench/support/work-direct.ts; target ≥ 0.8). Twice: with a model double that answers like a fast hosted model
//    (20 words, 10 ms apart: about 0.2 s a call, where real models take seconds) — the target's figure — and with one
//    that answers all at once, where the worker's own cost per task (queue, statuses, issue update, comment, stored
//    events) is all there is to see.
// 3. The in-process worker's own cost (issue 27): with a model double that answers in 20 ms, the 1,000 tasks beside
//    the same 1,000 runs started through `POST /agui`, AGUI_CONCURRENCY at a time, each on a fresh server of the same
//    kind (target >= 0.8).
//    Beside the wall clock, each side's server costs per run, which do not depend on the machine's load: SQL
//    statements (transactions among them), CPU time of the server and (PostgreSQL) of its backends.
// The server under test is the real one (bench/support/platform-server.ts builds it as `serve` does), on SQLite, or on
// PostgreSQL with `npm run bench -- work postgres` (the server TEST_DATABASE_URL names). BENCH_PART=1, 2 or 3 runs only
// that part; BENCH_TALLY_DIR=<dir> keeps part 3's full tallies (statements by text) there.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../src/db/index.ts";
import { createTestDatabase } from "../test/helpers/databases.ts";
import { TestModelServer } from "../test/helpers/model-server.ts";
import { createIssues, json, ms, percentile, register, sleep } from "./support/api.ts";
import { backendCpu, backendCpuSpent } from "./support/cpu-ticks.ts";
import { startChild } from "./support/processes.ts";
import { AUTOCOMMIT, type Tally } from "./support/sql-tally.ts";

const PICKUP_SAMPLES = 100;
const TASKS = 1000;
const AGENTS = 20;
const ASSIGN_CONCURRENCY = 50;
const ANSWER =
  "Triaged: this belongs to the frontend team, priority medium, and the steps to reproduce are clear enough.";
const MODELS = {
  "fast hosted model (20 words, 10 ms apart)": { text: ANSWER, chunkDelayMs: 10 },
  "instant model (the whole answer at once)": { text: ANSWER },
} as const;
const AGUI_CONCURRENCY = 8;
const TWENTY_MS_MODEL = { text: [ANSWER], chunkDelayMs: 20 };

const dialect = process.argv[3] === "postgres" ? "postgres" : "sqlite";
const PART = process.env.BENCH_PART;
const runs = (part: string) => PART === undefined || PART === part;
const TALLY_DIR = process.env.BENCH_TALLY_DIR ?? mkdtempSync(join(tmpdir(), "bench-work-"));

/** A server's own costs over a drain: its tally, and the CPU its PostgreSQL backends spent (0 on SQLite). */
interface Costs {
  tally: Tally;
  backendsCpuMs: number;
}

/** Starts counting the PostgreSQL backends' CPU of the database at `url`; the returned function ends it (ms). */
async function countBackends(url: string): Promise<() => Promise<number>> {
  if (dialect !== "postgres") return async () => 0;
  const handle = openDatabase(url);
  const name = new URL(url).pathname.slice(1);
  const before = await backendCpu(handle.db, name);
  return async () => {
    const spent = backendCpuSpent(before, await backendCpu(handle.db, name));
    await handle.close();
    return spent;
  };
}

/** Per run: SQL statements, transactions (BEGIN and autocommit writes), server CPU, backends' CPU, requests. */
function perRun(costs: Costs, count: number): string {
  const { tally } = costs;
  const sum = (counts: Record<string, number>, keep: (key: string) => boolean = () => true) =>
    Object.entries(counts).reduce((total, [key, value]) => total + (keep(key) ? value : 0), 0) / count;
  const statements = sum(tally.statements, (text) => text !== AUTOCOMMIT);
  const transactions = sum(tally.statements, (text) => /^\s*begin\b/i.test(text) || text === AUTOCOMMIT);
  const cpu = (tally.cpuMs.user + tally.cpuMs.system) / count;
  const backends = dialect === "postgres" ? `, ${(costs.backendsCpuMs / count).toFixed(1)} ms backends' CPU` : "";
  const requests = sum(tally.requests);
  return (
    `${statements.toFixed(1)} SQL statements (${transactions.toFixed(1)} transactions), ` +
    `${cpu.toFixed(1)} ms server CPU${backends}, ${requests.toFixed(2)} requests`
  );
}

/** A workspace with `AGENTS` agents and `count` unassigned issues. */
async function seed(base: string, count: number) {
  const { token } = await register(base, "work-bench");
  const ws = (await json("POST", `${base}/api/v1/workspaces/`, token, { name: "Work bench" })).id;
  const api = `${base}/api/v1/workspaces/${ws}`;
  const agents: string[] = [];
  for (let index = 0; index < AGENTS; index++) {
    agents.push((await json("POST", `${api}/agents/`, token, { name: `Agent ${index}` })).id);
  }
  const issues = await createIssues(api, token, count);
  return { token, api, agents, issues };
}

/** Resolves when no task is queued, running or waiting; returns every task. */
async function allTasksEnded(api: string, token: string, expected: number): Promise<any[]> {
  for (;;) {
    const open = await json("GET", `${api}/tasks?status=queued,running,waiting_approval&limit=1`, token);
    if (open.length === 0) {
      const tasks: any[] = [];
      for (let offset = 0; ; offset += 200) {
        const page = await json("GET", `${api}/tasks?limit=200&offset=${offset}`, token);
        tasks.push(...page);
        if (page.length < 200) break;
      }
      if (tasks.length >= expected) return tasks;
    }
    await sleep(50);
  }
}

async function pickupLatency(model: TestModelServer, base: string) {
  const { token, api, agents, issues } = await seed(base, PICKUP_SAMPLES + 5);
  const fromSent: number[] = [];
  const fromAnswered: number[] = [];
  for (const [index, issueId] of issues.entries()) {
    model.reset();
    const sent = performance.now();
    await json("PATCH", `${api}/issues/${issueId}`, token, {
      assignee_type: "agent",
      assignee_id: agents[index % AGENTS],
    });
    const answered = performance.now();
    while (model.requests.length === 0) await sleep(1);
    const received = model.requests[0]!.receivedAt;
    // The first few warm the server up (JIT, statement cache, connections).
    if (index >= 5) {
      fromSent.push(received - sent);
      fromAnswered.push(received - answered);
    }
    await allTasksEnded(api, token, index + 1);
  }
  return { fromSent, fromAnswered };
}

/** Queues TASKS tasks with no worker running (AGENT_WORKERS=0), then lets a server with workers drain them. */
async function throughputOfTasks(model: TestModelServer, databaseUrl: string, tallyFile?: string) {
  const queueing = await startChild("bench/support/platform-server.ts", [], {
    ...serverEnv(databaseUrl),
    AGENT_WORKERS: "0",
  });
  const { token, api: queuedApi, agents, issues } = await seed(queueing.url, TASKS);
  let next = 0;
  await Promise.all(
    Array.from({ length: ASSIGN_CONCURRENCY }, async () => {
      for (let index = next++; index < issues.length; index = next++) {
        await json("PATCH", `${queuedApi}/issues/${issues[index]}`, token, {
          assignee_type: "agent",
          assignee_id: agents[index % AGENTS],
        });
      }
    }),
  );
  await queueing.stop();
  model.reset();
  const working = await startChild("bench/support/platform-server.ts", [], {
    ...serverEnv(databaseUrl),
    ...(tallyFile && { BENCH_TALLY: tallyFile }),
  });
  const backends = await countBackends(databaseUrl);
  const api = queuedApi.replace(queueing.url, working.url);
  const tasks = await allTasksEnded(api, token, TASKS);
  const backendsCpuMs = await backends();
  await working.stop();
  const first = Math.min(...tasks.map((task) => Date.parse(`${task.started_at}Z`)));
  const last = Math.max(...tasks.map((task) => Date.parse(`${task.finished_at}Z`)));
  const seconds = (last - first) / 1000;
  const succeeded = tasks.filter((task) => task.status === "succeeded" && task.attempt === 1).length;
  // Exactly once: one model request per task (each run is one model call), every issue asked about once.
  const asked = new Set(
    model.requests.map((request) => /id ([0-9a-f-]{36})\)/.exec(JSON.stringify(request.body))?.[1]),
  );
  const costs = tallyFile ? { tally: readTally(tallyFile), backendsCpuMs } : undefined;
  return { seconds, succeeded, requests: model.requests.length, distinctIssues: asked.size, costs };
}

const readTally = (file: string) => JSON.parse(readFileSync(file, "utf8")) as Tally;

/**
 * The same runs as the tasks, started through /agui by AGUI_CONCURRENCY clients; runs/s by the clients' clock. The
 * agents are made by another server first, so that the measured one counts the runs only.
 */
async function throughputOfAgui(databaseUrl: string, tallyFile: string) {
  const seeding = await startChild("bench/support/platform-server.ts", [], {
    ...serverEnv(databaseUrl),
    AGENT_WORKERS: "0",
  });
  const { token, agents } = await seed(seeding.url, 0);
  await seeding.stop();
  const server = await startChild("bench/support/platform-server.ts", [], {
    ...serverEnv(databaseUrl),
    AGENT_WORKERS: "0",
    BENCH_TALLY: tallyFile,
  });
  const backends = await countBackends(databaseUrl);
  let next = 0;
  let finished = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: AGUI_CONCURRENCY }, async () => {
      for (let index = next++; index < TASKS; index = next++) {
        const response = await fetch(`${server.url}/agui?agent=${agents[index % AGENTS]}`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
          body: JSON.stringify({
            threadId: `thread-${index}`,
            runId: `run-${index}`,
            messages: [{ id: `message-${index}`, role: "user", content: `Task ${index}: please triage.` }],
          }),
        });
        if ((await response.text()).includes("RUN_FINISHED")) finished++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const backendsCpuMs = await backends();
  await server.stop();
  return { runs: finished, seconds, costs: { tally: readTally(tallyFile), backendsCpuMs } };
}

function runDirect(env: Record<string, string>): Promise<{ runs: number; seconds: number }> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "bench/support/work-direct.ts", String(TASKS), String(AGENTS)],
    {
      cwd: new URL("..", import.meta.url).pathname,
      env: { ...process.env, LOG_LEVEL: "warn", ...env },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on("exit", (code) => {
      if (code !== 0) reject(new Error(`work-direct exited with ${code}`));
      else resolve(JSON.parse(output.trim().split("\n").at(-1)!));
    });
  });
}

const model = await TestModelServer.start();
model.setDefault(MODELS["instant model (the whole answer at once)"]);
const databases = await Promise.all(Array.from({ length: 7 }, () => createTestDatabase(dialect)));
function serverEnv(url: string) {
  return { DATABASE_URL: url, OPENAI_BASE_URL: model.url, AGENT_MODEL: "openai/bench-model" };
}
try {
  console.log(`work benchmark on ${dialect}; model double at ${model.url}; AGENT_WORKERS default (8)`);
  let verdict = true;

  if (runs("1")) {
    const idle = await startChild("bench/support/platform-server.ts", [], serverEnv(databases[0]!.url));
    const pickup = await pickupLatency(model, idle.url);
    await idle.stop();
    const p99 = percentile(pickup.fromSent, 99);
    console.log(`\npickup latency, assignment → first model request (${pickup.fromSent.length} samples, idle server)`);
    console.log(
      `  from the PATCH sent      p50 ${ms(percentile(pickup.fromSent, 50))}  p99 ${ms(p99)}  (target p99 < 50 ms) ${p99 < 50 ? "PASS" : "FAIL"}`,
    );
    console.log(
      `  from the PATCH answered  p50 ${ms(percentile(pickup.fromAnswered, 50))}  p99 ${ms(percentile(pickup.fromAnswered, 99))}`,
    );
    verdict &&= p99 < 50;
  }

  for (const [index, [name, script]] of Object.entries(MODELS).entries()) {
    if (!runs("2")) break;
    model.setDefault(script);
    const direct = await runDirect(serverEnv(databases[1 + 2 * index]!.url));
    const directRate = direct.runs / direct.seconds;
    const load = await throughputOfTasks(model, databases[2 + 2 * index]!.url);
    const rate = TASKS / load.seconds;
    const ratio = rate / directRate;
    const exactlyOnce = load.succeeded === TASKS && load.requests === TASKS && load.distinctIssues === TASKS;
    const primary = index === 0;
    console.log(`\n${TASKS} tasks over ${AGENTS} agents, queued at once; ${name}`);
    console.log(
      `  runtime directly  ${direct.runs} runs in ${direct.seconds.toFixed(2)} s = ${directRate.toFixed(0)} runs/s`,
    );
    console.log(`  tasks             ${TASKS} tasks in ${load.seconds.toFixed(2)} s = ${rate.toFixed(0)} tasks/s`);
    console.log(
      `  succeeded on the first attempt ${load.succeeded}/${TASKS}, model requests ${load.requests}, distinct issues ${load.distinctIssues} ${exactlyOnce ? "PASS" : "FAIL"}`,
    );
    console.log(
      `  tasks/direct ${ratio.toFixed(2)}${primary ? ` (target >= 0.8) ${ratio >= 0.8 ? "PASS" : "FAIL"}` : " (no target: overhead only)"}`,
    );
    verdict &&= exactlyOnce && (!primary || ratio >= 0.8);
  }

  if (runs("3")) {
    model.setDefault(TWENTY_MS_MODEL);
    const agui = await throughputOfAgui(databases[5]!.url, join(TALLY_DIR, `tally-agui-${dialect}.json`));
    const aguiRate = agui.runs / agui.seconds;
    const load = await throughputOfTasks(model, databases[6]!.url, join(TALLY_DIR, `tally-tasks-${dialect}.json`));
    const rate = TASKS / load.seconds;
    const ratio = rate / aguiRate;
    const exactlyOnce = load.succeeded === TASKS && load.requests === TASKS && load.distinctIssues === TASKS;
    const averages = loadavg().map((value) => value.toFixed(2));
    console.log(`\n${TASKS} tasks over ${AGENTS} agents; a model that answers in 20 ms: the worker's own cost`);
    console.log(
      `  /agui, ${AGUI_CONCURRENCY} at a time  ${agui.runs} runs in ${agui.seconds.toFixed(2)} s = ${aguiRate.toFixed(0)} runs/s`,
    );
    console.log(`  tasks             ${TASKS} tasks in ${load.seconds.toFixed(2)} s = ${rate.toFixed(0)} tasks/s`);
    console.log(
      `  succeeded on the first attempt ${load.succeeded}/${TASKS}, model requests ${load.requests}, distinct issues ${load.distinctIssues} ${exactlyOnce ? "PASS" : "FAIL"}`,
    );
    console.log(`  tasks/agui ${ratio.toFixed(2)} (target >= 0.8) ${ratio >= 0.8 ? "PASS" : "FAIL"}`);
    console.log(`  per run, the server's own costs (independent of the load; load average now ${averages.join(" ")}):`);
    console.log(`    /agui  ${perRun(agui.costs, agui.runs)}`);
    console.log(`    tasks  ${perRun(load.costs!, TASKS)} (requests: the bench's polls)`);
    verdict &&= agui.runs === TASKS && exactlyOnce && ratio >= 0.8;
  }
  process.exitCode = verdict ? 0 : 1;
} finally {
  await model.close();
  await Promise.all(databases.map((database) => database.drop()));
}
