// npm run bench -- runners [postgres]
// Runners and their runtimes (spec runtimes.md §6), side by side in one run:
// 1. pickup on an idle runner: an issue's assignment → the CLI started by the runner (a `command` runtime whose first
//    act is to note the time), p50/p99, timed from the PATCH answered (the assignment committed) and from it sent
//    (target p99 < 100 ms: the runner's long poll is woken by the queue's signal, no polling delay);
// 2. 500 tasks over 50 agents queued at once, then 4 runners (a `command` runtime that answers at once, a shell script
//    of builtins: answerScript) drain them:
//    every task succeeds exactly once (one CLI start per task), and the throughput (first task started → last task
//    finished, by the tasks' own times) beside the same 500 tasks run in-process by the server's worker against an
//    instant model double (target ≥ 0.8).
// The server under test is the real one (bench/support/platform-server.ts); the runners are real `agent-platform
// runner` processes. SQLite by default, PostgreSQL with `postgres` (the server TEST_DATABASE_URL names).
// Beside the wall clock, the draining server's own costs per task, which do not depend on the machine's load: SQL
// statements (transactions among them), HTTP requests and CPU time (bench/support/sql-tally.ts). BENCH_TALLY_DIR=<dir>
// keeps each side's full tally (statements by text) there; BENCH_PICKUP=0 skips the pickup part;
// BENCH_CPU_PROFILE_DIR=<dir> writes CPU profiles of the draining servers and the runners there;
// BENCH_PICKUP_PAUSE_MS=<ms> waits between pickup samples, so that the runner has wound up the previous task.
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type BinProcess, runBin, stopBins } from "../test/helpers/bin.ts";
import { createTestDatabase } from "../test/helpers/databases.ts";
import { TestModelServer } from "../test/helpers/model-server.ts";
import { json, ms, percentile, sleep } from "./support/api.ts";
import { startChild } from "./support/processes.ts";
import { AUTOCOMMIT, type Tally } from "./support/sql-tally.ts";

const PICKUP_SAMPLES = 100;
const PICKUP_PAUSE_MS = Number(process.env.BENCH_PICKUP_PAUSE_MS ?? 0);
const TASKS = 500;
const AGENTS = 50;
const RUNNERS = 4;
const RUNNER_SLOTS = 8;
const ASSIGN_CONCURRENCY = 50;
const ANSWER = "Triaged: this belongs to the frontend team, priority medium, and the steps to reproduce are clear.";

const TALLY_DIR = process.env.BENCH_TALLY_DIR;
const PICKUP = process.env.BENCH_PICKUP !== "0";
/** To profile the draining server and the runners: their .cpuprofile files are written into this folder. */
const PROFILE_DIR = process.env.BENCH_CPU_PROFILE_DIR;
const SERVER_NODE_FLAGS = PROFILE_DIR ? ["--cpu-prof", `--cpu-prof-dir=${PROFILE_DIR}`] : [];
const RUNNER_ENV: Record<string, string> = PROFILE_DIR
  ? {
      NODE_OPTIONS: `--require ${fileURLToPath(new URL("./support/cpu-profile.cjs", import.meta.url))}`,
      BENCH_CPU_PROFILE_DIR: PROFILE_DIR,
    }
  : {};

const dialect = process.argv[3] === "postgres" ? "postgres" : "sqlite";
const scratch = mkdtempSync(join(tmpdir(), "bench-runners-"));

/**
 * The command runtime. For the pickup it notes when it started (ms, `date`) and which task, reads its brief and
 * answers. For the throughput it answers at once as an instant model does, with the shell's own commands only (no
 * program of its own to start): it reads the brief's first line, notes which task it was started for (the
 * exactly-once check) and answers.
 */
function answerScript(log: string, timed: boolean): string {
  const file = join(scratch, `answer-${Math.random().toString(36).slice(2)}.sh`);
  const body = timed
    ? `echo "$(date +%s%3N) $AGENT_PLATFORM_TASK_ID $AGENT_PLATFORM_ISSUE" >> '${log}'\ncat > /dev/null\n`
    : `IFS= read -r heading\necho "0 $AGENT_PLATFORM_TASK_ID $AGENT_PLATFORM_ISSUE" >> '${log}'\n`;
  writeFileSync(file, `#!/bin/sh\n${body}echo '${ANSWER}'\n`);
  chmodSync(file, 0o755);
  return file;
}

/** A workspace with `agents` agents (bound to command runtimes, or in-process) and `count` unassigned issues. */
async function seed(base: string, count: number, agentCount: number, bound: boolean) {
  const { token } = await json("POST", `${base}/api/v1/auth/register`, undefined, {
    email: `runners-bench-${Date.now()}-${Math.random()}@example.com`,
    password: "benchmark password",
  });
  const ws = (await json("POST", `${base}/api/v1/workspaces/`, token, { name: "Runners bench" })).id;
  const api = `${base}/api/v1/workspaces/${ws}`;
  const runtime_config = bound ? { runtime: { select: [{ kind: "command" }] } } : {};
  const agents: string[] = [];
  for (let index = 0; index < agentCount; index++) {
    agents.push((await json("POST", `${api}/agents/`, token, { name: `Agent ${index}`, runtime_config })).id);
  }
  const issues: string[] = [];
  for (let start = 0; start < count; start += 50) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(50, count - start) }, (_, offset) =>
        json("POST", `${api}/issues/`, token, { title: `Task ${start + offset}`, description: "Please triage." }),
      ),
    );
    issues.push(...batch.map((issue) => issue.id));
  }
  const runnerToken = (await json("POST", `${api}/runner-tokens`, token, { name: "bench" })).token as string;
  return { token, api, agents, issues, runnerToken };
}

async function assignAll(api: string, token: string, issues: string[], agents: string[]) {
  let next = 0;
  await Promise.all(
    Array.from({ length: ASSIGN_CONCURRENCY }, async () => {
      for (let index = next++; index < issues.length; index = next++) {
        await json("PATCH", `${api}/issues/${issues[index]}`, token, {
          assignee_type: "agent",
          assignee_id: agents[index % agents.length],
        });
      }
    }),
  );
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
    await sleep(20);
  }
}

async function startRunner(url: string, token: string, name: string, script: string) {
  const dir = mkdtempSync(join(scratch, "runner-"));
  const runner = runBin(
    [
      "runner",
      "--url",
      url,
      "--token",
      token,
      "--name",
      name,
      "--dir",
      dir,
      "--max-tasks",
      String(RUNNER_SLOTS),
      "--runtime",
      `instant=sh ${script}`,
    ],
    { env: RUNNER_ENV },
  );
  await runner.printed(/registered with/);
  return Object.assign(runner, { bootCpuMs: cpuMsOf(runner.child.pid!).own });
}

const lines = (log: string) => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n").filter(Boolean) : []);

async function pickup(databaseUrl: string) {
  const server = await startChild("bench/support/platform-server.ts", [], { DATABASE_URL: databaseUrl });
  const { token, api, agents, issues, runnerToken } = await seed(server.url, PICKUP_SAMPLES + 5, 5, true);
  const log = join(scratch, "pickup.log");
  await startRunner(server.url, runnerToken, "idle", answerScript(log, true));
  const fromSent: number[] = [];
  const fromAnswered: number[] = [];
  for (const [index, issueId] of issues.entries()) {
    const sent = Date.now();
    await json("PATCH", `${api}/issues/${issueId}`, token, { assignee_type: "agent", assignee_id: agents[index % 5] });
    const answered = Date.now();
    let started: number | undefined;
    while (started === undefined) {
      const line = lines(log)[index];
      if (line) started = Number(line.split(" ")[0]);
      else await sleep(1);
    }
    // The first few warm the server and the runner up (JIT, statement cache, connections).
    if (index >= 5) {
      fromSent.push(started - sent);
      fromAnswered.push(started - answered);
    }
    await allTasksEnded(api, token, index + 1);
    await sleep(PICKUP_PAUSE_MS);
  }
  await stopBins();
  await server.stop();
  return { fromSent, fromAnswered };
}

/** TASKS tasks queued at once (nothing works them yet), then drained: by RUNNERS runners, or by the worker. */
async function throughput(databaseUrl: string, by: "runners" | "worker", modelUrl: string) {
  const env = { DATABASE_URL: databaseUrl, OPENAI_BASE_URL: modelUrl, AGENT_MODEL: "openai/bench-model" };
  const queueing = await startChild("bench/support/platform-server.ts", [], { ...env, AGENT_WORKERS: "0" });
  const seeded = await seed(queueing.url, TASKS, AGENTS, by === "runners");
  await assignAll(seeded.api, seeded.token, seeded.issues, seeded.agents);
  await queueing.stop();
  const tallyFile = join(TALLY_DIR ?? scratch, `tally-${by}-${dialect}.json`);
  const server = await startChild(
    "bench/support/platform-server.ts",
    [],
    { ...env, BENCH_TALLY: tallyFile },
    SERVER_NODE_FLAGS,
  );
  const api = seeded.api.replace(queueing.url, server.url);
  const log = join(scratch, "throughput.log");
  const databaseCpuAtStart = postgresCpuMs();
  const runners: (BinProcess & { bootCpuMs: number })[] = [];
  let tasks: any[];
  let runnersCpuMs = { own: 0, starters: 0, clis: 0, boot: 0 };
  let databaseCpuMs = 0;
  try {
    if (by === "runners") {
      const script = answerScript(log, false);
      runners.push(
        ...(await Promise.all(
          Array.from({ length: RUNNERS }, (_, index) =>
            startRunner(server.url, seeded.runnerToken, `r${index}`, script),
          ),
        )),
      );
    }
    tasks = await allTasksEnded(api, seeded.token, TASKS);
    databaseCpuMs = postgresCpuMs() - databaseCpuAtStart;
    for (const runner of runners) {
      const cpu = cpuMsOf(runner.child.pid!);
      // Its process starter (a child of its own) and the CLIs that starter reaped.
      const starters = childrenOf(runner.child.pid!).map(cpuMsOf);
      runnersCpuMs = {
        own: runnersCpuMs.own + cpu.own - runner.bootCpuMs,
        starters: runnersCpuMs.starters + starters.reduce((sum, each) => sum + each.own, 0),
        clis: runnersCpuMs.clis + cpu.children + starters.reduce((sum, each) => sum + each.children, 0),
        boot: runnersCpuMs.boot + runner.bootCpuMs,
      };
    }
    // Ctrl-C: a runner with nothing to run deregisters and exits at once (writing its profile).
    for (const runner of runners) runner.child.kill("SIGINT");
    await Promise.race([Promise.all(runners.map((runner) => runner.exited)), sleep(5_000)]);
  } finally {
    await stopBins();
    await server.stop();
  }
  const first = Math.min(...tasks.map((task) => Date.parse(`${task.started_at}Z`)));
  const last = Math.max(...tasks.map((task) => Date.parse(`${task.finished_at}Z`)));
  const succeeded = tasks.filter((task) => task.status === "succeeded" && task.attempt === 1).length;
  const starts = by === "runners" ? lines(log).map((line) => line.split(" ")[1]) : [];
  const tally = JSON.parse(readFileSync(tallyFile, "utf8")) as Tally;
  return {
    seconds: (last - first) / 1000,
    succeeded,
    starts: starts.length,
    distinct: new Set(starts).size,
    tally,
    runnersCpuMs,
    databaseCpuMs,
  };
}

/** CPU time (ms) of a process and of the children it waited for (the runner's CLIs), from /proc; 0 without it. */
function cpuMsOf(pid: number): { own: number; children: number } {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ").map(Number);
    // utime, stime, cutime, cstime: fields 14–17 of proc(5), here counted from the state (field 3); 100 ticks a second.
    return { own: (fields[11]! + fields[12]!) * 10, children: (fields[13]! + fields[14]!) * 10 };
  } catch {
    return { own: 0, children: 0 };
  }
}

/** The pids of a process's children, from /proc; none without it. */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of existsSync("/proc") ? readdirSync("/proc") : []) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const parent = Number(readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]!.split(" ")[1]);
      if (parent === pid) children.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return children;
}

/** PostgreSQL's CPU time (ms) on this machine: its processes' own and what they reaped of theirs; 0 without it. */
function postgresCpuMs(): number {
  if (dialect !== "postgres") return 0;
  let total = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").trim() !== "postgres") continue;
    } catch {
      continue;
    }
    const cpu = cpuMsOf(Number(entry));
    total += cpu.own + cpu.children;
  }
  return total;
}

/** The draining server's costs per task: statements, transactions, requests (by route) and CPU time. */
function perTask(tally: Tally): string {
  const sum = (counts: Record<string, number>, keep: (key: string) => boolean = () => true) =>
    Object.entries(counts).reduce((total, [key, value]) => total + (keep(key) ? value : 0), 0) / TASKS;
  const transactions = sum(tally.statements, (text) => /^\s*begin\b/i.test(text) || text === AUTOCOMMIT);
  const cpu = (tally.cpuMs.user + tally.cpuMs.system) / TASKS;
  const routes = Object.entries(tally.requests)
    .filter(([route]) => !route.startsWith("GET "))
    .map(([route, value]) => `${route.replace(/^POST \/api\/v1\/runner/, "")} ${(value / TASKS).toFixed(2)}`)
    .join(", ");
  return (
    `${sum(tally.statements, (text) => text !== AUTOCOMMIT).toFixed(1)} SQL statements (${transactions.toFixed(1)} transactions), ` +
    `${cpu.toFixed(1)} ms server CPU${routes ? `; requests: ${routes}` : ""}`
  );
}

const model = await TestModelServer.start();
model.setDefault({ text: ANSWER });
const databases = await Promise.all(Array.from({ length: 3 }, () => createTestDatabase(dialect)));
try {
  console.log(`runners benchmark on ${dialect}; ${RUNNERS} runners × ${RUNNER_SLOTS} slots, a command runtime`);
  let p99 = 0;
  if (PICKUP) {
    const latency = await pickup(databases[0]!.url);
    p99 = percentile(latency.fromAnswered, 99);
    console.log(`\npickup, assignment → CLI started on an idle runner (${latency.fromAnswered.length} samples)`);
    console.log(
      `  from the PATCH answered  p50 ${ms(percentile(latency.fromAnswered, 50))}  p99 ${ms(p99)}  (target p99 < 100 ms) ${p99 < 100 ? "PASS" : "FAIL"}`,
    );
    console.log(
      `  from the PATCH sent      p50 ${ms(percentile(latency.fromSent, 50))}  p99 ${ms(percentile(latency.fromSent, 99))}`,
    );
  }

  const inProcess = await throughput(databases[1]!.url, "worker", model.url);
  const runners = await throughput(databases[2]!.url, "runners", model.url);
  const baseRate = TASKS / inProcess.seconds;
  const rate = TASKS / runners.seconds;
  const ratio = rate / baseRate;
  const exactlyOnce = runners.succeeded === TASKS && runners.starts === TASKS && runners.distinct === TASKS;
  const load = loadavg().map((value) => value.toFixed(2));
  console.log(`\n${TASKS} tasks over ${AGENTS} agents, queued at once (load average now ${load.join(" ")})`);
  console.log(
    `  in-process (instant model)  ${inProcess.succeeded}/${TASKS} in ${inProcess.seconds.toFixed(2)} s = ${baseRate.toFixed(0)} tasks/s`,
  );
  console.log(
    `  ${RUNNERS} runners (command)      ${runners.succeeded}/${TASKS} in ${runners.seconds.toFixed(2)} s = ${rate.toFixed(0)} tasks/s`,
  );
  console.log(
    `  CLI starts ${runners.starts}, distinct tasks ${runners.distinct}: exactly once ${exactlyOnce ? "PASS" : "FAIL"}`,
  );
  console.log(`  runners/in-process ${ratio.toFixed(2)} (target >= 0.8) ${ratio >= 0.8 ? "PASS" : "FAIL"}`);
  console.log("  per task, the draining server's own costs (independent of the machine's load):");
  const database = (ms: number) => (dialect === "postgres" ? `; PostgreSQL ${(ms / TASKS).toFixed(1)} ms CPU` : "");
  console.log(`    in-process  ${perTask(inProcess.tally)}${database(inProcess.databaseCpuMs)}`);
  console.log(`    runners     ${perTask(runners.tally)}${database(runners.databaseCpuMs)}`);
  const runnerCpu = (ms: number) => `${(ms / TASKS).toFixed(1)} ms`;
  console.log(
    `    the runner processes ${runnerCpu(runners.runnersCpuMs.own)} CPU (after ${(runners.runnersCpuMs.boot / RUNNERS).toFixed(0)} ms each to start), their process starters ${runnerCpu(runners.runnersCpuMs.starters)}, their CLIs ${runnerCpu(runners.runnersCpuMs.clis)}`,
  );
  process.exitCode = p99 < 100 && exactlyOnce && ratio >= 0.8 ? 0 : 1;
} finally {
  await stopBins();
  await model.close();
  await Promise.all(databases.map((database) => database.drop()));
  rmSync(scratch, { recursive: true, force: true });
}
