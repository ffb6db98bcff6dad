// npm run bench -- mcp
// tools/call of a trivial echo tool on our server beside a bare hand-written JSON-RPC echo on node:http (same framing),
// both in child processes: Streamable HTTP /mcp at 32 connections; legacy SSE with 32 sessions calling back to back;
// then 1,000 SSE sessions held open on our server: every one answers, RSS per session, RSS after they close.
import { readFileSync } from "node:fs";
import { createTestDatabase } from "../test/helpers/databases.ts";
import { fmt, type LoadResult, load, startChild } from "./support/processes.ts";
import { BenchSession, closeIdlePostConnections, type SseLoadResult, sseLoad } from "./support/sse-client.ts";

const DURATION_S = Number(process.env.BENCH_DURATION ?? 8);
const CONNECTIONS = 32;
const SSE_SESSIONS = 32;
const HELD_SESSIONS = 1000;

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

const rssKiB = (pid: number): number => {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(match?.[1] ?? 0);
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** RSS after two full collections in the child (it collects on SIGUSR2). */
async function settledRssKiB(pid: number): Promise<number> {
  for (let round = 0; round < 2; round += 1) {
    process.kill(pid, "SIGUSR2");
    await sleep(400);
  }
  return rssKiB(pid);
}

const line = (label: string, result: { p50: number; p99: number }, perSecond: number, extra = "") =>
  console.log(
    `${label.padEnd(18)} ${fmt(perSecond, 0).padStart(7)} calls/s  p50 ${result.p50} ms  p99 ${result.p99} ms${extra}`,
  );

const database = await createTestDatabase("sqlite");
const ours = await startChild("bench/support/mcp-server.ts", [], { DATABASE_URL: database.url, LOG_LEVEL: "warn" });
const bare = await startChild("bench/support/bare-mcp-echo.ts");
let bareRunning = true;
try {
  // Warm-up both, then measure one after the other so they do not share the two cores.
  await mcpLoad(ours.url, 2);
  await mcpLoad(bare.url, 2);
  const oursHttp = await mcpLoad(ours.url, DURATION_S);
  const bareHttp = await mcpLoad(bare.url, DURATION_S);
  console.log(
    `\n== tool protocol: Streamable HTTP POST /mcp, tools/call echo, ${CONNECTIONS} connections, ${DURATION_S}s`,
  );
  line("agent-platform", oursHttp, oursHttp.requestsPerSecond, `  errors ${oursHttp.errors + oursHttp.non2xx}`);
  line("bare node:http", bareHttp, bareHttp.requestsPerSecond);
  console.log(
    `ratio              ${fmt(oursHttp.requestsPerSecond / bareHttp.requestsPerSecond, 3)} of the bare echo (target ≥ 0.25)`,
  );

  await sseLoad(ours.url, SSE_SESSIONS, 2);
  await sseLoad(bare.url, SSE_SESSIONS, 2);
  const oursSse: SseLoadResult = await sseLoad(ours.url, SSE_SESSIONS, DURATION_S);
  const bareSse: SseLoadResult = await sseLoad(bare.url, SSE_SESSIONS, DURATION_S);
  console.log(`\n== tool protocol: legacy SSE, ${SSE_SESSIONS} sessions calling back to back, ${DURATION_S}s`);
  line("agent-platform", oursSse, oursSse.callsPerSecond);
  line("bare node:http", bareSse, bareSse.callsPerSecond);
  console.log(
    `ratio              ${fmt(oursSse.callsPerSecond / bareSse.callsPerSecond, 3)} of the bare echo (target ≥ 0.5)`,
  );

  await bare.stop();
  bareRunning = false;
  closeIdlePostConnections();
  const pid = ours.child.pid ?? 0;
  await sleep(500);
  const before = await settledRssKiB(pid);
  const started = performance.now();
  const held: BenchSession[] = [];
  for (let start = 0; start < HELD_SESSIONS; start += 100) {
    held.push(...(await Promise.all(Array.from({ length: 100 }, () => BenchSession.open(ours.url)))));
  }
  const replies = await Promise.all(held.map((session, index) => session.call(`session ${index}`)));
  const answered = replies.filter((reply, index) => reply.includes(`session ${index}`)).length;
  closeIdlePostConnections();
  await sleep(300);
  const open = await settledRssKiB(pid);
  for (const session of held) session.close();
  await sleep(1000);
  const after = await settledRssKiB(pid);
  const perSession = ((open - before) * 1024) / HELD_SESSIONS;
  console.log(`\n== tool protocol: ${HELD_SESSIONS} legacy SSE sessions held open`);
  console.log(
    `answered           ${answered} of ${HELD_SESSIONS} (opened and called in ${fmt((performance.now() - started) / 1000)} s)`,
  );
  console.log(
    `RSS                before ${fmt(before / 1024)} MiB  open ${fmt(open / 1024)} MiB  after close ${fmt(after / 1024)} MiB`,
  );
  console.log(`per session        ${fmt(perSession / 1024, 2)} KiB (target < 15 KiB)`);
  console.log(`given back         within ${fmt(Math.abs(after - before) / 1024, 2)} MiB of before (target ≤ 10 MiB)`);
} finally {
  await ours.stop();
  if (bareRunning) await bare.stop();
  await database.drop();
}
