import type { Kysely } from "kysely";

// Usage and budgets (spec control.md): every run's cached tokens and cost, and a daily rollup per workspace, agent
// and model kept in the transaction that writes a run's usage, so usage reports and budget checks read a few rows
// per day instead of every run. Budgets are monthly, in USD, on the workspace and on each agent (null: no limit).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("runs")
    .addColumn("cache_read_tokens", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable("runs")
    .addColumn("cache_write_tokens", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable("runs").addColumn("cost_usd", "double precision").execute();
  await db.schema
    .createIndex("runs_workspace_started_idx")
    .on("runs")
    .columns(["workspace_id", "started_at"])
    .execute();

  await db.schema
    .createTable("usage_daily")
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
    .addColumn("day", "text", (c) => c.notNull())
    .addColumn("agent_id", "text", (c) => c.notNull())
    .addColumn("model", "text", (c) => c.notNull())
    .addColumn("runs", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("input_tokens", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("output_tokens", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("cache_read_tokens", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("cache_write_tokens", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("cost_usd", "double precision", (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint("usage_daily_pk", ["workspace_id", "day", "agent_id", "model"])
    .execute();
  await db.schema
    .createIndex("usage_daily_agent_idx")
    .on("usage_daily")
    .columns(["workspace_id", "agent_id", "day"])
    .execute();

  await db.schema.alterTable("workspaces").addColumn("monthly_budget_usd", "double precision").execute();
  await db.schema.alterTable("agents").addColumn("monthly_budget_usd", "double precision").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("usage_daily").execute();
  await db.schema.dropIndex("runs_workspace_started_idx").execute();
  for (const column of ["cache_read_tokens", "cache_write_tokens", "cost_usd"]) {
    await db.schema.alterTable("runs").dropColumn(column).execute();
  }
  await db.schema.alterTable("workspaces").dropColumn("monthly_budget_usd").execute();
  await db.schema.alterTable("agents").dropColumn("monthly_budget_usd").execute();
}
