// The real server with one trivial `echo` custom tool, for `npm run bench -- mcp`. Prints its URL on stdout.
// SIGUSR2 runs a full garbage collection (exposed at start through V8 flags) and prints process.memoryUsage() as a
// JSON line, so memory is read after garbage is gone.
import v8 from "node:v8";
import { runInNewContext } from "node:vm";
import { loadConfig } from "../../src/config.ts";
import { openDatabase } from "../../src/db/index.ts";
import { migrateToLatest } from "../../src/db/migrate.ts";
import { buildServer } from "../../src/server.ts";
import { staticSource, ToolRegistry } from "../../src/tools/registry.ts";

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
v8.setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;
process.on("SIGUSR2", () => {
  collectGarbage();
  console.log(JSON.stringify(process.memoryUsage()));
});
process.on("SIGTERM", async () => {
  await app.close();
  await database.close();
  process.exit(0);
});
