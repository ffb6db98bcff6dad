// The real server for `npm run bench -- events`. Prints its URL on stdout, and its memory after a full collection on
// SIGUSR2.
import { loadConfig } from "../../src/config.ts";
import { openDatabase } from "../../src/db/index.ts";
import { migrateToLatest } from "../../src/db/migrate.ts";
import { buildServer } from "../../src/server.ts";
import { reportMemoryOnSignal } from "./memory-on-signal.ts";

const config = loadConfig();
const database = openDatabase(config.databaseUrl);
await migrateToLatest(database.db);
const app = await buildServer({ config, database });
console.log(await app.listen({ host: "127.0.0.1", port: 0 }));
reportMemoryOnSignal();
process.on("SIGTERM", async () => {
  await app.close();
  await database.close();
  process.exit(0);
});
