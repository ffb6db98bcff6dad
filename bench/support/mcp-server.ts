// The real server with one trivial `echo` custom tool, for `npm run bench -- mcp`. Prints its URL on stdout, and its
// memory after a full collection on SIGUSR2.
import { loadConfig } from "../../src/config.ts";
import { openDatabase } from "../../src/db/index.ts";
import { migrateToLatest } from "../../src/db/migrate.ts";
import { buildServer } from "../../src/server.ts";
import { staticSource, ToolRegistry } from "../../src/tools/registry.ts";
import { reportMemoryOnSignal } from "./memory-on-signal.ts";

const config = loadConfig();
const database = openDatabase(config.databaseUrl);
await migrateToLatest(database.db);
const registry = new ToolRegistry().addSource(
  staticSource([
    {
      name: "echo",
      description: "Returns its arguments",
      inputSchema: { type: "object", properties: { text: { type: "string" } } },
      run: async (args) => args,
    },
  ]),
);
const app = await buildServer({ config, database, registry });
console.log(await app.listen({ host: "127.0.0.1", port: 0 }));
reportMemoryOnSignal();
process.on("SIGTERM", async () => {
  await app.close();
  await database.close();
  process.exit(0);
});
