// Statements one webhook fire sends to the database, and how many of them run while the transaction holds the
// workspace row's write lock (from its first `UPDATE "workspaces"` to COMMIT). Fires go one at a time; what the
// server does after a commit on its own (event followers, the scheduler, webhook deliveries) is left out of the count.
// tsx bench/support/fire-statements.ts [sqlite|postgres]   (postgres needs TEST_DATABASE_URL)
import SqliteDatabase from "better-sqlite3";
import pg from "pg";
import { startAutopilotFixture } from "../../test/autopilots/helpers.ts";

const dialect = process.argv[2] === "postgres" ? "postgres" : "sqlite";
const FIRES = 20;

const BACKGROUND = [
  /^select \* from "events"/,
  /^select "webhooks"/,
  /^select "autopilots"\."id" from "autopilots" inner join "event_counters"/,
  /^select \* from "autopilots" where "id" = \S+$/,
  /^update "autopilots" set "last_seq"/,
  /^select "id", "workspace_id" from "autopilots" where "enabled"/,
  /^select min\("next_fire_at"\)/,
];
let statements: string[] = [];
const record = (query: unknown) => {
  const text =
    typeof query === "string" ? query : query && typeof query === "object" && "text" in query ? String(query.text) : "";
  if (text && !BACKGROUND.some((pattern) => pattern.test(text))) statements.push(text);
};
const pgQuery = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  record(args[0]);
  return pgQuery.apply(this, args);
} as typeof pg.Client.prototype.query;
const statementProto = Object.getPrototypeOf(new SqliteDatabase(":memory:").prepare("select 1"));
for (const method of ["all", "run", "get", "iterate"] as const) {
  const original = statementProto[method];
  statementProto[method] = function (this: { source: string }, ...args: unknown[]) {
    record(this.source);
    return original.apply(this, args);
  };
}

const f = await startAutopilotFixture(dialect);
try {
  const created = await f.t.api.post(
    `workspaces/${f.ws}/autopilots`,
    {
      name: "Alerts",
      agent_id: f.agentId,
      overlap: "allow",
      issue: { title: "Alert {{payload.alert.n}}", description: "severity {{payload.severity}}" },
      triggers: [{ kind: "webhook" }],
    },
    { token: f.member.token },
  );
  const path = new URL(created.body.triggers[0].url).pathname;
  const perFire: { total: number; locked: number; texts: string[] }[] = [];
  for (let n = 0; n < FIRES; n++) {
    statements = [];
    const key = n % 4 === 3 ? `key-${n - 1}` : `key-${n}`;
    const answer = await f.t.api.post(
      path,
      { alert: { n }, severity: "high" },
      { headers: { "idempotency-key": key } },
    );
    if (answer.status !== 202 && answer.status !== 200) throw new Error(JSON.stringify(answer));
    const texts = statements.filter((text) => !/^(select 1|pragma)/i.test(text));
    const lockAt = texts.findIndex((text) => /update "workspaces"/i.test(text));
    const commitAt = texts.findIndex((text) => /^commit/i.test(text));
    perFire.push({ total: texts.length, locked: lockAt < 0 ? 0 : commitAt - lockAt + 1, texts });
    if (n === 0 || n === 3) {
      console.log(`\n[${dialect}] fire ${n} (${answer.status} ${answer.body.status}): ${texts.length} statements`);
      texts.forEach((text, i) => {
        const marker = lockAt >= 0 && i >= lockAt && i <= commitAt ? "L" : " ";
        console.log(`${marker} ${String(i + 1).padStart(2)} ${text.replace(/\s+/g, " ").slice(0, 150)}`);
      });
    }
  }
  const created202 = perFire.filter((_, n) => n % 4 !== 3).slice(1);
  const duplicates = perFire.filter((_, n) => n % 4 === 3);
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  console.log(
    `\n[${dialect}] per fire that made an issue: ${mean(created202.map((x) => x.total)).toFixed(1)} statements, ` +
      `${mean(created202.map((x) => x.locked)).toFixed(1)} while the workspace row is locked; ` +
      `per duplicate: ${mean(duplicates.map((x) => x.total)).toFixed(1)}, locked ${mean(duplicates.map((x) => x.locked)).toFixed(1)}`,
  );
} finally {
  await f.t.close();
}
process.exit(0);
