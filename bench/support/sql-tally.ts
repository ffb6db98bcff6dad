// A benchmark server's own costs, counted where they cannot depend on the machine's load: every SQL statement it
// runs (by text, transactions' BEGIN/COMMIT included), every HTTP request it answers (by route), and its CPU time.
// Counting starts at `start()` (after the server listens: startup and migrations are not counted) and is written as
// JSON to `file` by `write()`. Patches the drivers' prototypes (better-sqlite3's Statement, pg's Client), not our code.
import { writeFileSync } from "node:fs";
import type { Server } from "node:http";
import SqliteDatabase from "better-sqlite3";
import pg from "pg";

export interface Tally {
  cpuMs: { user: number; system: number };
  statements: Record<string, number>;
  /** SQLite only: the time (ms) spent in each statement, the driver's call. */
  statementMs: Record<string, number>;
  requests: Record<string, number>;
}

/** The key under which writes that commit on their own are counted (beside their text). */
export const AUTOCOMMIT = "-- autocommit write";

const BEGIN = /^\s*begin\b/i;
const END = /^\s*(commit|rollback)\b/i;
/** PostgreSQL: a statement that writes (outside BEGIN … COMMIT, a transaction of its own). */
const WRITE = /\b(insert|update|delete)\b/i;
const statements = new Map<string, number>();
const statementMs = new Map<string, number>();
const requests = new Map<string, number>();
let counting = false;
let cpuAtStart: NodeJS.CpuUsage | undefined;

const count = (map: Map<string, number>, key: string) => {
  if (counting) map.set(key, (map.get(key) ?? 0) + 1);
};

/** Ids and numbers out of a path, so that one route is one key. */
const routeOf = (method: string, url: string) =>
  `${method} ${url
    .split("?")[0]!
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, ":id")
    .replace(/\/\d+(?=\/|$)/g, "/:n")}`;

export function installTally(): void {
  const probe = new SqliteDatabase(":memory:");
  const statement = Object.getPrototypeOf(probe.prepare("select 1")) as Record<string, unknown>;
  probe.close();
  for (const method of ["run", "get", "all", "iterate"]) {
    const original = statement[method] as (...args: unknown[]) => unknown;
    statement[method] = function (
      this: { source: string; reader: boolean; database: { inTransaction: boolean } },
      ...args: unknown[]
    ) {
      count(statements, this.source);
      // A write outside BEGIN … COMMIT is a transaction (and a commit) of its own; BEGIN is counted as itself.
      if (!this.reader && !this.database.inTransaction && !BEGIN.test(this.source)) count(statements, AUTOCOMMIT);
      const start = performance.now();
      try {
        return original.apply(this, args);
      } finally {
        if (counting) statementMs.set(this.source, (statementMs.get(this.source) ?? 0) + performance.now() - start);
      }
    };
  }
  const client = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const query = client.query;
  const inTransaction = new WeakSet<object>();
  client.query = function (this: object, ...args: unknown[]) {
    const [first] = args;
    const text = typeof first === "string" ? first : (first as { text?: string } | undefined)?.text;
    if (text !== undefined) {
      count(statements, text);
      if (BEGIN.test(text)) inTransaction.add(this);
      else if (END.test(text)) inTransaction.delete(this);
      else if (!inTransaction.has(this) && WRITE.test(text)) count(statements, AUTOCOMMIT);
    }
    return query.apply(this, args);
  };
}

export function startTally(server: Server): void {
  server.on("request", (request) => count(requests, routeOf(request.method ?? "", request.url ?? "")));
  cpuAtStart = process.cpuUsage();
  counting = true;
}

export function writeTally(file: string): void {
  const cpu = process.cpuUsage(cpuAtStart);
  const tally: Tally = {
    cpuMs: { user: cpu.user / 1000, system: cpu.system / 1000 },
    statements: Object.fromEntries(statements),
    statementMs: Object.fromEntries(statementMs),
    requests: Object.fromEntries(requests),
  };
  writeFileSync(file, JSON.stringify(tally));
}
