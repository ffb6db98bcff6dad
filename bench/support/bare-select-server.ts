// The baseline of a database read: a bare Fastify route answering `select 1` from the same database (DATABASE_URL)
// through the same Kysely layer, with no auth, no membership check, no schema. Prints its URL on stdout.
import Fastify from "fastify";
import { sql } from "kysely";
import { loadConfig } from "../../src/config.ts";
import { openDatabase } from "../../src/db/index.ts";

const database = openDatabase(loadConfig().databaseUrl);
const app = Fastify();
app.get("/select1", async () => (await sql<{ one: number }>`select 1 as one`.execute(database.db)).rows);
console.log(await app.listen({ host: "127.0.0.1", port: 0 }));
process.on("SIGTERM", async () => {
  await app.close();
  await database.close();
  process.exit(0);
});
