// The real server, as `agent-platform serve` builds it, but with the login rate limit raised so a benchmark
// that logs in continuously measures bcrypt and not 429s. Prints its URL on stdout. With BENCH_TALLY=<file> it counts
// its SQL statements, requests and CPU time from the moment it listens, and writes them to <file> when stopped.
import { loadConfig } from "../../src/config.ts";
import { openDatabase } from "../../src/db/index.ts";
import { migrateToLatest } from "../../src/db/migrate.ts";
import { buildServer } from "../../src/server.ts";
import { installTally, startTally, writeTally } from "./sql-tally.ts";

const tallyFile = process.env.BENCH_TALLY;
if (tallyFile) installTally();
const config = loadConfig();
const database = openDatabase(config.databaseUrl);
await migrateToLatest(database.db);
const app = await buildServer({
  config,
  database,
  loginRateLimit: { failuresPerEmail: 1e9, failuresPerAddress: 1e9, windowMs: 60_000 },
});
const url = await app.listen({ host: "127.0.0.1", port: 0 });
if (tallyFile) startTally(app.server);
console.log(url);
process.on("SIGTERM", async () => {
  if (tallyFile) writeTally(tallyFile);
  await app.close();
  await database.close();
  process.exit(0);
});
