// `agent-platform migrate`: applies the migrations the database does not have yet.
import { loadConfigForCommand } from "../config.ts";
import { openDatabase } from "../db/index.ts";
import { migrateToLatest } from "../db/migrate.ts";

export async function migrate(): Promise<number> {
  const config = loadConfigForCommand();
  if (config === undefined) return 1;
  const database = openDatabase(config.databaseUrl, { maxConnections: config.databasePoolSize });
  try {
    const applied = await migrateToLatest(database.db);
    const state = applied.length ? `Applied ${applied.join(", ")}` : "Database is up to date";
    console.log(`${state} (${database.location})`);
  } finally {
    await database.close();
  }
  return 0;
}
