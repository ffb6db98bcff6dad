// npm run bench -- agui
// POST /agui relaying a model that streams 2,000 one-word chunks as fast as it can, side by side with a straight
// pipe (bench/_agui-pipe.ts) and, for reference, a minimal relay on the openai SDK (bench/_agui-sdk-relay.ts). Each runs
// as its own child process; the server under test is `agent-platform serve`
// reading OPENAI_BASE_URL like a user's would. Figures: content events/s under 50 concurrent runs (target ≥ 0.45 of
// the pipe, every run complete), one run at a time (time to first content, tokens/s, server-added time per token,
// target < 2 ms), and time to first event p99 under the 50 concurrent runs (kept-alive and new connections apart).
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const WORDS = 2000;
const CONCURRENT = 50;
const CONCURRENT_ROUNDS = 5;
const SEQUENTIAL_RUNS = 15;
const DEADLINE_MS = 170_000;

const root = fileURLToPath(new URL("..", import.meta.url));
const tsx = join(root, "node_modules", ".bin", "tsx");
const children: ChildProcess[] = [];
const dataDir = mkdtempSync(join(tmpdir(), "agui-bench-"));
const deadline = setTimeout(() => {
  console.error(`benchmark exceeded ${DEADLINE_MS / 1000} s: stopping`);
  cleanup();
  process.exit(1);
}, DEADLINE_MS);

function cleanup() {
  for (const child of children) child.kill();
  rmSync(dataDir, { recursive: true, force: true });
}

/** Starts a child and resolves with the first match of `pattern` on its stdout. */
function startChild(args: string[], env: Record<string, string>, pattern: RegExp): Promise<string> {
  const child = spawn(tsx, args, { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let seen = "";
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      seen += chunk;
      const match = pattern.exec(seen);
      if (match?.[1]) resolve(match[1]);
    });
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => process.stderr.write(chunk));
    child.on("exit", (code) => reject(new Error(`${args.join(" ")} exited with ${code}`)));
  });
}

interface RunFigures {
  firstEventMs: number;
  firstContentMs: number;
  totalMs: number;
  contentEvents: number;
  finished: boolean;
}

const agent = new Agent({ keepAlive: true, maxSockets: 256 });
let runCounter = 0;

/** One seed-dialect run; counts text_message_content frames as they arrive. */
function run(baseUrl: string): Promise<RunFigures> {
  runCounter += 1;
  const body = JSON.stringify({
    threadId: `bench-thread-${runCounter}`,
    runId: `bench-run-${runCounter}`,
    state: { messages: [{ id: `m-${runCounter}`, role: "user", content: "Say many words" }] },
  });
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      `${baseUrl}/agui`,
      {
        method: "POST",
        agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        res.setEncoding("utf8");
        const figures: RunFigures = {
          firstEventMs: -1,
          firstContentMs: -1,
          totalMs: 0,
          contentEvents: 0,
          finished: false,
        };
        let pending = "";
        res.on("data", (chunk: string) => {
          if (figures.firstEventMs < 0) figures.firstEventMs = performance.now() - started;
          pending += chunk;
          let end = pending.indexOf("\n\n");
          let from = 0;
          while (end !== -1) {
            if (pending.startsWith("event: text_message_content\n", from)) {
              if (figures.contentEvents++ === 0) figures.firstContentMs = performance.now() - started;
            } else if (pending.startsWith("event: run_finished\n", from)) figures.finished = true;
            from = end + 2;
            end = pending.indexOf("\n\n", from);
          }
          pending = pending.slice(from);
        });
        res.on("end", () => {
          figures.totalMs = performance.now() - started;
          resolve(figures);
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

async function concurrentRound(baseUrl: string) {
  const started = performance.now();

  const runs = await Promise.all(Array.from({ length: CONCURRENT }, () => run(baseUrl)));
  const seconds = (performance.now() - started) / 1000;
  const events = runs.reduce((sum, each) => sum + each.contentEvents, 0);
  const complete = runs.filter((each) => each.finished && each.contentEvents === WORDS).length;
  return { eventsPerSecond: events / seconds, complete, firstEvents: runs.map((each) => each.firstEventMs) };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
};
const median = (values: number[]) => percentile(values, 50);
const fmt = (value: number, digits = 0) =>
  value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });

try {
  const modelUrl = await startChild(["bench/_model-server.ts", String(WORDS)], {}, /MODEL_URL=(\S+)/);
  const modelEnv = { OPENAI_BASE_URL: modelUrl };
  const [pipeUrl, sdkUrl, aguiUrl] = await Promise.all([
    startChild(["bench/_agui-pipe.ts"], modelEnv, /listening on (http:\/\/\S+)/),
    startChild(["bench/_agui-sdk-relay.ts"], modelEnv, /listening on (http:\/\/\S+)/),
    startChild(
      ["src/cli.ts", "serve", "--host", "127.0.0.1", "--port", "0"],
      {
        ...modelEnv,
        AGENT_MODEL: "openai/bench-model",
        DATABASE_URL: `sqlite:${join(dataDir, "bench.db")}`,
        LOG_LEVEL: "info", // the start-up line naming the address is an info line; one line per run costs nothing here
        PLATFORM_ENV: "dev",
      },
      /listening on (http:\/\/\S+?)\s/,
    ),
  ]);
  const targets = { pipe: pipeUrl, sdk: sdkUrl, agui: aguiUrl } as const;
  const names = ["pipe", "sdk", "agui"] as const;
  type Name = (typeof names)[number];
  console.log(`model ${modelUrl}  pipe ${pipeUrl}  sdk ${sdkUrl}  agui ${aguiUrl}  (${WORDS} one-word chunks per run)`);
  console.log("pipe: bare node:http relay; sdk: minimal relay on the openai SDK (reference); agui: POST /agui");

  // Warm-up (JIT, connection pools, SQLite file).
  for (const url of Object.values(targets)) await Promise.all(Array.from({ length: 10 }, () => run(url)));

  type Round = Awaited<ReturnType<typeof concurrentRound>>;
  const concurrent: Record<Name, Round[]> = { pipe: [], sdk: [], agui: [] };
  for (let round = 0; round < CONCURRENT_ROUNDS; round++) {
    for (const name of names) concurrent[name].push(await concurrentRound(targets[name]));
  }
  const sequential: Record<Name, RunFigures[]> = { pipe: [], sdk: [], agui: [] };
  for (let index = 0; index < SEQUENTIAL_RUNS; index++) {
    for (const name of names) sequential[name].push(await run(targets[name]));
  }

  const rate = (name: Name) => median(concurrent[name].map((round) => round.eventsPerSecond));
  const complete = (name: Name) => concurrent[name].reduce((sum, round) => sum + round.complete, 0);
  // Round 1 opens 40 new connections while the server is busy (Node accepts one connection per event-loop turn);
  // later rounds reuse kept-alive connections. Both are shown.
  const firstEvents = (name: Name, rounds: "first" | "later") =>
    (rounds === "first" ? concurrent[name].slice(0, 1) : concurrent[name].slice(1)).flatMap(
      (round) => round.firstEvents,
    );
  const ttfe = (name: Name) =>
    `time to first event p50 ${fmt(median(firstEvents(name, "later")), 1)} ms, p99 ${fmt(percentile(firstEvents(name, "later"), 99), 1)} ms` +
    ` (new connections: p99 ${fmt(percentile(firstEvents(name, "first"), 99), 1)} ms)`;
  // Each round of a target runs right after the pipe's: the median of these pairs' ratios shrugs off load that other
  // processes put on the machine now and then.
  const ratioToPipe = (name: Name) =>
    median(
      concurrent[name].map((round, index) => round.eventsPerSecond / (concurrent.pipe[index]?.eventsPerSecond ?? 1)),
    );
  const ratio = ratioToPipe("agui");
  const totalRuns = CONCURRENT * CONCURRENT_ROUNDS;

  console.log(`\n${CONCURRENT} concurrent runs (median of ${CONCURRENT_ROUNDS} rounds)`);
  for (const name of names) {
    console.log(
      `  ${name.padEnd(4)}  ${fmt(rate(name)).padStart(9)} content events/s   complete ${complete(name)}/${totalRuns}   ${ttfe(name)}`,
    );
  }
  console.log(`  sdk/pipe ${fmt(ratioToPipe("sdk"), 2)} (reference)`);
  console.log(
    `  agui/pipe ${fmt(ratio, 2)} (median of the rounds' ratios; target >= 0.45) ${ratio >= 0.45 ? "PASS" : "FAIL"}`,
  );

  const seq = (name: Name) => ({
    firstContent: median(sequential[name].map((each) => each.firstContentMs)),
    total: median(sequential[name].map((each) => each.totalMs)),
    tokensPerSecond: median(sequential[name].map((each) => each.contentEvents / (each.totalMs / 1000))),
    complete: sequential[name].filter((each) => each.contentEvents === WORDS && each.finished).length,
  });
  const pipeSeq = seq("pipe");
  const sdkSeq = seq("sdk");
  const aguiSeq = seq("agui");
  const addedPerToken = (aguiSeq.total - pipeSeq.total) / WORDS;
  console.log(`\none run at a time (median of ${SEQUENTIAL_RUNS})`);
  for (const [name, figures] of [
    ["pipe", pipeSeq],
    ["sdk", sdkSeq],
    ["agui", aguiSeq],
  ] as const) {
    console.log(
      `  ${name.padEnd(4)}  first content ${fmt(figures.firstContent, 1).padStart(6)} ms   ${fmt(figures.tokensPerSecond).padStart(7)} tokens/s   run ${fmt(figures.total, 1)} ms   complete ${figures.complete}/${SEQUENTIAL_RUNS}`,
    );
  }
  console.log(
    `  server-added time per token ${fmt(addedPerToken * 1000, 1)} µs (target < 2 ms) ${addedPerToken < 2 ? "PASS" : "FAIL"}`,
  );
  const allComplete = complete("agui") === totalRuns && aguiSeq.complete === SEQUENTIAL_RUNS;
  if (!allComplete) console.log("  some /agui runs were incomplete: FAIL");
  process.exitCode = ratio >= 0.45 && addedPerToken < 2 && allComplete ? 0 : 1;
} finally {
  clearTimeout(deadline);
  agent.destroy();
  cleanup();
}
