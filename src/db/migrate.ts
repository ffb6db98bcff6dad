import { type Migration, type MigrationProvider, Migrator, sql } from "kysely";
import { type Db, isPostgres } from "./index.ts";
import * as init from "./migrations/0001_init.ts";
import * as issueListVersion from "./migrations/0002_issue_list_version.ts";
import * as events from "./migrations/0004_events.ts";
import * as work from "./migrations/0005_work.ts";
import * as rateLimits from "./migrations/0006_rate_limits.ts";
import * as streamTokens from "./migrations/0007_stream_tokens.ts";
import * as mcpSessions from "./migrations/0008_mcp_sessions.ts";
import * as callWorkspace from "./migrations/0009_call_workspace.ts";
import * as taskUrgency from "./migrations/0010_task_urgency.ts";
import * as webhookFairness from "./migrations/0011_webhook_fairness.ts";
import * as triggerChains from "./migrations/0012_trigger_chains.ts";
import * as openStreams from "./migrations/0013_open_streams.ts";
import * as runtimes from "./migrations/0014_runtimes.ts";
import * as autopilots from "./migrations/0015_autopilots.ts";
import * as skills from "./migrations/0016_skills.ts";
import * as usageBudgets from "./migrations/0017_usage_budgets.ts";
import * as budgetAlerts from "./migrations/0018_budget_alerts.ts";
import * as questions from "./migrations/0019_questions.ts";
import * as inbox from "./migrations/0020_inbox.ts";
import * as outboundCalls from "./migrations/0021_outbound_calls.ts";

// Listed here rather than read from disk so migrations work the same under tsx, a bundle or a test runner.
// Migrations never change once landed: add a new numbered file instead.
const migrations: Record<string, Migration> = {
  "0001_init": init,
  "0002_issue_list_version": issueListVersion,
  "0004_events": events,
  "0005_work": work,
  "0006_rate_limits": rateLimits,
  "0007_stream_tokens": streamTokens,
  "0008_mcp_sessions": mcpSessions,
  "0009_call_workspace": callWorkspace,
  "0010_task_urgency": taskUrgency,
  "0011_webhook_fairness": webhookFairness,
  "0012_trigger_chains": triggerChains,
  "0013_open_streams": openStreams,
  "0014_runtimes": runtimes,
  "0015_autopilots": autopilots,
  "0016_skills": skills,
  "0017_usage_budgets": usageBudgets,
  "0018_budget_alerts": budgetAlerts,
  "0019_questions": questions,
  "0020_inbox": inbox,
  "0021_outbound_calls": outboundCalls,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

/** The newest migration: a database that has it is fully migrated. */
export const LATEST_MIGRATION = Object.keys(migrations).sort().at(-1) as string;

/** Any 64-bit number only this service uses; every process of one deployment must take the same one. */
const MIGRATION_LOCK_KEY = sql.lit(7_305_518_341_023_119);

/**
 * Brings the schema up to date; returns the names of the migrations it applied.
 * On PostgreSQL, N processes may start at once: each waits for a session advisory lock held on one connection for
 * the whole run (table creation included), so exactly one applies the migrations and the others find nothing to do.
 */
export async function migrateToLatest(db: Db): Promise<string[]> {
  if (!isPostgres(db)) return runMigrations(db);
  return db.connection().execute(async (connection) => {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`.execute(connection);
    try {
      return await runMigrations(connection);
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`.execute(connection);
    }
  });
}

/** True when the database answers and holds the newest migration (readiness). */
export async function isMigrated(db: Db): Promise<boolean> {
  const row = await db
    .selectFrom("kysely_migration" as never)
    .select(sql<number>`1`.as("present"))
    .where(sql.ref("name"), "=", LATEST_MIGRATION)
    .executeTakeFirst();
  return row !== undefined;
}

async function runMigrations(db: Db): Promise<string[]> {
  // Numbers are handed out to work in progress and land in any order: a database that has a later one still takes an
  // earlier one that arrives after it (each migration touches only its own tables and columns).
  const migrator = new Migrator({ db, provider, allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
}
