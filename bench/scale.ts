// npm run bench -- scale   (PostgreSQL: TEST_DATABASE_URL or BENCH_DATABASE_URL names the server)
// The issues list (limit 50, bearer auth) and MCP `/mcp` tools/list (API key) through haproxy (deploy/haproxy.cfg,
// round robin) in front of 1, 2 and 3 serve processes on one PostgreSQL, at 64 connections; then one process's
// PostgreSQL list beside a bare Fastify route serving the same JSON from memory. Every process, the proxy and the
// load generator share this machine's cores: the CPU budget is printed with the figures.

import { writeFileSync } from "node:fs";
import { availableParallelism, cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { startHaproxy } from "../test/helpers/cluster.ts";
import { createTestDatabase } from "../test/helpers/databases.ts";
import { fmt, type LoadResult, load, startChild } from "./support/processes.ts";

const DURATION_S = Number(process.env.BENCH_DURATION ?? 5);
const CONNECTIONS = 64;
const ISSUES = 300;
const SECRET = "bench-scale-secret-0123456789abcdef0123456789";

if (!process.env.TEST_DATABASE_URL && !process.env.BENCH_DATABASE_URL) {
  console.error("scale needs PostgreSQL: set TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test");
  process.exit(2);
}
process.env.TEST_DATABASE_URL ??= process.env.BENCH_DATABASE_URL;

async function json(url: string, method: string, body?: unknown, headers: Record<string, string> = {}): Promise<any> {
  const response = await fetch(url, {
    method,
    headers: { "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
  return response.json();
}

async function seed(base: string) {
  const { token } = await json(`${base}/api/v1/auth/register`, "POST", {
    email: `scale-${Date.now()}@example.com`,
    password: "benchmark password",
  });
  const auth = { authorization: `Bearer ${token}` };
  const workspace = await json(`${base}/api/v1/workspaces/`, "POST", { name: "Scale" }, auth);
  const issues = `${base}/api/v1/workspaces/${workspace.id}/issues/`;
  for (let start = 0; start < ISSUES; start += 50) {
    await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        json(issues, "POST", { title: `Issue ${start + i}`, description: "Lorem ipsum dolor sit amet." }, auth),
      ),
    );
  }
  const key = await json(`${base}/api/v1/workspaces/${workspace.id}/api-keys`, "POST", { name: "bench" }, auth);
  return { auth, listPath: `/api/v1/workspaces/${workspace.id}/issues/?limit=50`, apiKey: key.key as string };
}

const toolsList = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
const row = (label: string, result: LoadResult, unit: string) =>
  console.log(
    `${label.padEnd(26)} ${fmt(result.requestsPerSecond, 0).padStart(7)} ${unit}  p50 ${result.p50} ms  p99 ${result.p99} ms  errors ${result.errors + result.non2xx}`,
  );

const database = await createTestDatabase("postgres");
const env = { DATABASE_URL: database.url, PLATFORM_JWT_SECRET: SECRET, AGENT_WORKERS: "0", LOG_LEVEL: "warn" };
const servers = [await startChild("bench/support/platform-server.ts", [], env)];
try {
  servers.push(...(await Promise.all([1, 2].map(() => startChild("bench/support/platform-server.ts", [], env)))));
  const { auth, listPath, apiKey } = await seed(servers[0]!.url);
  const mcpHeaders = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "x-api-key": apiKey,
  };
  console.log(
    `\n== scale (postgres): ${CONNECTIONS} connections, ${DURATION_S}s each; CPU budget: ${availableParallelism()} cores ` +
      `(${cpus()[0]?.model ?? "?"}) shared by every process, haproxy and the load generator`,
  );
  for (const count of [1, 2, 3]) {
    const ports = servers.slice(0, count).map((server) => Number(new URL(server.url).port));
    const proxy = await startHaproxy({ serve: ports, call: [] });
    try {
      await load({ url: `${proxy.url}${listPath}`, headers: auth, connections: 8, duration: 1 }); // warm-up
      const list = await load({
        url: `${proxy.url}${listPath}`,
        headers: auth,
        connections: CONNECTIONS,
        duration: DURATION_S,
      });
      const mcp = await load({
        url: `${proxy.url}/mcp`,
        method: "POST",
        headers: mcpHeaders,
        body: toolsList,
        connections: CONNECTIONS,
        duration: DURATION_S,
      });
      row(`${count} process${count > 1 ? "es" : ""}: issues list`, list, "req/s");
      row(`${count} process${count > 1 ? "es" : ""}: /mcp tools/list`, mcp, "req/s");
    } finally {
      await proxy.close();
    }
  }

  // One process's PostgreSQL list vs the bare route serving the same JSON from memory (no proxy in either).
  const direct = `${servers[0]!.url}${listPath}`;
  const file = join(tmpdir(), `bench-scale-issues-${process.pid}.json`);
  writeFileSync(file, JSON.stringify(await json(direct, "GET", undefined, auth)));
  const bare = await startChild("bench/support/bare-list-server.ts", [file]);
  try {
    await load({ url: `${bare.url}/issues`, connections: 8, duration: 1 });
    const ours = await load({ url: direct, headers: auth, connections: CONNECTIONS, duration: DURATION_S });
    const baseline = await load({ url: `${bare.url}/issues`, connections: CONNECTIONS, duration: DURATION_S });
    row("1 process, direct: list", ours, "req/s");
    row("bare Fastify route", baseline, "req/s");
    console.log(
      `ratio                      ${fmt(ours.requestsPerSecond / baseline.requestsPerSecond, 3)} of the bare route (PostgreSQL)`,
    );
  } finally {
    await bare.stop();
  }
} finally {
  await Promise.all(servers.map((server) => server.stop()));
  await database.drop();
}
