import { type Migration, type MigrationProvider, Migrator } from "kysely";
import type { Db } from "./index.ts";
import * as init from "./migrations/0001_init.ts";
import * as issueListVersion from "./migrations/0002_issue_list_version.ts";
import * as events from "./migrations/0004_events.ts";
import * as work from "./migrations/0005_work.ts";
import * as mcpSessions from "./migrations/0008_mcp_sessions.ts";

// Listed here rather than read from disk so migrations work the same under tsx, a bundle or a test runner.
// Migrations never change once landed: add a new numbered file instead.
const migrations: Record<string, Migration> = {
  "0001_init": init,
  "0002_issue_list_version": issueListVersion,
  "0004_events": events,
  "0005_work": work,
  "0008_mcp_sessions": mcpSessions,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

/** Brings the schema up to date; returns the names of the migrations it applied. */
export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
}
