// npm run bench -- platform
// With 1,000 issues in a workspace: GET the issues list (limit 50, bearer auth) under 64 connections, beside a bare
// Fastify route serving the same 50 issues from memory; the same list while a writer keeps changing issues (so the
// page cache keeps expiring); then GET /auth/me p99 while 8 logins run at once.
// On SQLite always, and on PostgreSQL when TEST_DATABASE_URL (or BENCH_DATABASE_URL) names a server (BENCH_DIALECT=
// sqlite or postgres runs only that one).
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase } from "../test/helpers/databases.ts";
import { BENCH_PASSWORD, createIssues, json, register } from "./support/api.ts";
import { fmt, load, startChild } from "./support/processes.ts";

const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = 64;
const ISSUES = 1000;

async function seed(base: string) {
  const { token, user } = await register(base, "bench");
  const workspace = await json("POST", `${base}/api/v1/workspaces/`, token, { name: "Bench" });
  await createIssues(`${base}/api/v1/workspaces/${workspace.id}`, token, ISSUES, (index) => ({
    title: `Issue ${index}`,
    description: "Lorem ipsum dolor sit amet, consectetur adipiscing elit.",
    priority: "medium",
  }));
  const email: string = user.email;
  const password = BENCH_PASSWORD;
  return { token, email, password, listUrl: `${base}/api/v1/workspaces/${workspace.id}/issues/?limit=50` };
}

async function benchDialect(dialect: "sqlite" | "postgres") {
  const database = await createTestDatabase(dialect);
  const server = await startChild("bench/support/platform-server.ts", [], { DATABASE_URL: database.url });
  try {
    const { token, email, password, listUrl } = await seed(server.url);
    const issues = await json("GET", listUrl, token);
    const file = join(tmpdir(), `bench-issues-${process.pid}.json`);
    writeFileSync(file, JSON.stringify(issues));
    const bare = await startChild("bench/support/bare-list-server.ts", [file]);

    const headers = { authorization: `Bearer ${token}` };
    await load({ url: listUrl, headers, connections: 8, duration: 2 }); // warm-up
    await load({ url: `${bare.url}/issues`, connections: 8, duration: 2 });
    const ours = await load({ url: listUrl, headers, connections: CONNECTIONS, duration: DURATION_S });
    const baseline = await load({ url: `${bare.url}/issues`, connections: CONNECTIONS, duration: DURATION_S });
    await bare.stop();

    // The same list while issues keep changing: a writer updates one issue back to back, so cached pages keep expiring.
    let writing = true;
    let writes = 0;
    const writer = (async () => {
      for (let n = 0; writing; n++) {
        await json("PATCH", `${listUrl.split("?")[0]}${issues[n % issues.length].id}`, token, { title: `Edited ${n}` });
        writes += 1;
      }
    })();
    const churned = await load({ url: listUrl, headers, connections: CONNECTIONS, duration: DURATION_S });
    writing = false;
    await writer;

    // /auth/me while 8 logins (bcrypt cost 12) run back to back.
    const loginBody = JSON.stringify({ email, password });
    const loginUrl = `${server.url}/api/v1/auth/login`;
    const logins = load({
      url: loginUrl,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: loginBody,
      connections: 8,
      duration: DURATION_S,
    });
    const me = load({ url: `${server.url}/api/v1/auth/me`, headers, connections: 4, duration: DURATION_S });
    const [loginResult, meResult] = await Promise.all([logins, me]);

    const ratio = ours.requestsPerSecond / baseline.requestsPerSecond;
    console.log(`\n== platform (${dialect}): GET issues list, limit 50, ${CONNECTIONS} connections, ${DURATION_S}s`);
    console.log(
      `agent-platform   ${fmt(ours.requestsPerSecond, 0).padStart(7)} req/s  p50 ${ours.p50} ms  p99 ${ours.p99} ms  errors ${ours.errors + ours.non2xx}`,
    );
    console.log(
      `bare Fastify     ${fmt(baseline.requestsPerSecond, 0).padStart(7)} req/s  p50 ${baseline.p50} ms  p99 ${baseline.p99} ms`,
    );
    console.log(`ratio            ${fmt(ratio, 3)} of the bare route (target ≥ 0.5 on SQLite)`);
    console.log(
      `while issues change ${fmt(churned.requestsPerSecond, 0).padStart(7)} req/s  p50 ${churned.p50} ms  p99 ${churned.p99} ms  ` +
        `(${fmt(writes / DURATION_S, 0)} writes/s; ratio ${fmt(churned.requestsPerSecond / baseline.requestsPerSecond, 3)})`,
    );
    console.log(
      `GET /auth/me during 8 concurrent logins: p50 ${meResult.p50} ms  p99 ${meResult.p99} ms (target < 50 ms); ` +
        `${fmt(loginResult.requestsPerSecond)} logins/s, ${fmt(meResult.requestsPerSecond, 0)} me/s, errors ${loginResult.errors + loginResult.non2xx + meResult.errors + meResult.non2xx}`,
    );
  } finally {
    await server.stop();
    await database.drop();
  }
}

// BENCH_DIALECT=sqlite or postgres runs that dialect only.
const only = process.env.BENCH_DIALECT;
if (only !== "postgres") await benchDialect("sqlite");
if (only !== "sqlite" && process.env.TEST_DATABASE_URL) await benchDialect("postgres");
else if (only !== "sqlite") {
  console.log("\n(PostgreSQL skipped: set TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test to include it)");
}
