// npm run bench -- mcp
// tools/call of a trivial echo tool on our server beside a bare hand-written JSON-RPC echo on node:http (same bytes on
// the wire), both in child processes, measured in alternating rounds: Streamable HTTP /mcp at 32 connections; legacy
// SSE with 32 sessions calling back to back. Then 1,000 SSE sessions held open on a fresh server: every one answers,
// RSS per session, RSS after they close (and the same on the bare echo, for reference).
import { setTimeout as sleep } from "node:timers/promises";
import { createTestDatabase } from "../test/helpers/databases.ts";
import { settledMemory } from "./support/memory.ts";
import { fmt, type LoadResult, load, startChild } from "./support/processes.ts";
import { BenchSession, closeIdlePostConnections, type SseLoadResult, sseLoad } from "./support/sse-client.ts";

const DURATION_S = Number(process.env.BENCH_DURATION ?? 8);
const CONNECTIONS = 32;
const SSE_SESSIONS = 32;
const HELD_SESSIONS = 1000;
const ROUNDS = 4;

interface Round {
  perSecond: number;
  p50: number;
  p99: number;
}

/** Rounds of equal length: mean rate, median of the rounds' p50 and p99. */
function combine(rounds: Round[]): Round {
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  return {
    perSecond: rounds.reduce((sum, round) => sum + round.perSecond, 0) / rounds.length,
    p50: median(rounds.map((round) => round.p50)),
    p99: median(rounds.map((round) => round.p99)),
  };
}

const callBody = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "echo", arguments: { text: "hi" } },
});

const mcpLoad = (base: string, duration: number): Promise<LoadResult> =>
  load({
    url: `${base}/mcp`,
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: callBody,
    connections: CONNECTIONS,
    duration,
  });

const mib = (bytes: number) => fmt(bytes / 1024 / 1024);

const line = (label: string, result: { p50: number; p99: number }, perSecond: number, extra = "") =>
  console.log(
    `${label.padEnd(18)} ${fmt(perSecond, 0).padStart(7)} calls/s  p50 ${result.p50} ms  p99 ${result.p99} ms${extra}`,
  );

/** On a fresh server, so what is measured is the sessions and not what the load phases left behind. */
async function heldSessions(label: string, script: string, databaseUrl: string, targets: boolean): Promise<void> {
  const server = await startChild(script, [], { DATABASE_URL: databaseUrl, LOG_LEVEL: "warn" });
  try {
    // Warm every code path once (SSE open, call, close) so first-use compilation is not counted as session memory.
    const warm = await Promise.all(Array.from({ length: 20 }, () => BenchSession.open(server.url)));
    await Promise.all(warm.map((session) => session.call("warm")));
    for (const session of warm) session.close();
    closeIdlePostConnections();
    await sleep(500);
    const before = await settledMemory(server.child);
    const started = performance.now();
    const held: BenchSession[] = [];
    for (let start = 0; start < HELD_SESSIONS; start += 100) {
      held.push(...(await Promise.all(Array.from({ length: 100 }, () => BenchSession.open(server.url)))));
    }
    const replies = await Promise.all(held.map((session, index) => session.call(`session ${index}`)));
    const answered = replies.filter((reply, index) => reply.includes(`session ${index}`)).length;
    const seconds = (performance.now() - started) / 1000;
    closeIdlePostConnections();
    await sleep(300);
    const open = await settledMemory(server.child);
    for (const session of held) session.close();
    await sleep(3000);
    const after = await settledMemory(server.child);
    const perSession = (open.rss - before.rss) / HELD_SESSIONS;
    console.log(`\n== tool protocol: ${HELD_SESSIONS} legacy SSE sessions held open, ${label} (fresh process)`);
    console.log(`answered           ${answered} of ${HELD_SESSIONS} (opened and called in ${fmt(seconds)} s)`);
    for (const [label, memory] of [
      ["before", before],
      ["open", open],
      ["after close", after],
    ] as const) {
      console.log(
        `${label.padEnd(18)} RSS ${mib(memory.rss)} MiB  heap ${mib(memory.heapUsed)} of ${mib(memory.heapTotal)} MiB  external ${mib(memory.external)} MiB`,
      );
    }
    console.log(`per session        ${fmt(perSession / 1024, 2)} KiB of RSS${targets ? " (target < 15 KiB)" : ""}`);
    console.log(
      `given back         RSS within ${mib(Math.abs(after.rss - before.rss))} MiB of before${targets ? " (target ≤ 10 MiB)" : ""}`,
    );
  } finally {
    await server.stop();
  }
}

const database = await createTestDatabase("sqlite");
const ours = await startChild("bench/support/mcp-server.ts", [], { DATABASE_URL: database.url, LOG_LEVEL: "warn" });
const bare = await startChild("bench/support/bare-mcp-echo.ts");
let bareRunning = true;
let oursRunning = true;
try {
  // Warm-up both; then alternate short rounds of each, so a change in the machine's other load hits both alike.
  await mcpLoad(ours.url, 2);
  await mcpLoad(bare.url, 2);
  const httpRounds = { ours: [] as LoadResult[], bare: [] as LoadResult[] };
  for (let round = 0; round < ROUNDS; round += 1) {
    httpRounds.ours.push(await mcpLoad(ours.url, DURATION_S / ROUNDS));
    httpRounds.bare.push(await mcpLoad(bare.url, DURATION_S / ROUNDS));
  }
  const oursHttp = combine(httpRounds.ours.map((r) => ({ perSecond: r.requestsPerSecond, p50: r.p50, p99: r.p99 })));
  const bareHttp = combine(httpRounds.bare.map((r) => ({ perSecond: r.requestsPerSecond, p50: r.p50, p99: r.p99 })));
  const httpErrors = httpRounds.ours.reduce((sum, r) => sum + r.errors + r.non2xx, 0);
  console.log(
    `\n== tool protocol: Streamable HTTP POST /mcp, tools/call echo, ${CONNECTIONS} connections, ${ROUNDS} × ${DURATION_S / ROUNDS}s each`,
  );
  line("agent-platform", oursHttp, oursHttp.perSecond, `  errors ${httpErrors}`);
  line("bare node:http", bareHttp, bareHttp.perSecond);
  console.log(`ratio              ${fmt(oursHttp.perSecond / bareHttp.perSecond, 3)} of the bare echo (target ≥ 0.25)`);

  await sseLoad(ours.url, SSE_SESSIONS, 2);
  await sseLoad(bare.url, SSE_SESSIONS, 2);
  const sseRounds = { ours: [] as SseLoadResult[], bare: [] as SseLoadResult[] };
  for (let round = 0; round < ROUNDS; round += 1) {
    sseRounds.ours.push(await sseLoad(ours.url, SSE_SESSIONS, DURATION_S / ROUNDS));
    sseRounds.bare.push(await sseLoad(bare.url, SSE_SESSIONS, DURATION_S / ROUNDS));
  }
  const oursSse = combine(sseRounds.ours.map((r) => ({ perSecond: r.callsPerSecond, p50: r.p50, p99: r.p99 })));
  const bareSse = combine(sseRounds.bare.map((r) => ({ perSecond: r.callsPerSecond, p50: r.p50, p99: r.p99 })));
  console.log(
    `\n== tool protocol: legacy SSE, ${SSE_SESSIONS} sessions calling back to back, ${ROUNDS} × ${DURATION_S / ROUNDS}s each`,
  );
  line("agent-platform", oursSse, oursSse.perSecond);
  line("bare node:http", bareSse, bareSse.perSecond);
  console.log(`ratio              ${fmt(oursSse.perSecond / bareSse.perSecond, 3)} of the bare echo (target ≥ 0.5)`);

  await bare.stop();
  bareRunning = false;
  closeIdlePostConnections();
  await ours.stop();
  oursRunning = false;
  await heldSessions("agent-platform", "bench/support/mcp-server.ts", database.url, true);
  await heldSessions("bare node:http (for reference)", "bench/support/bare-mcp-echo.ts", database.url, false);
} finally {
  if (oursRunning) await ours.stop();
  if (bareRunning) await bare.stop();
  await database.drop();
}
