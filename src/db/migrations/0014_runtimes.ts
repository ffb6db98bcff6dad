import { type Kysely, sql } from "kysely";

// Runtimes (spec runtimes.md): runner tokens (stored hashed), the runners people start and the runtimes (agent CLIs)
// each offers, and on tasks what a runner's claim adds: the runtime that holds it, the hash of its task token and the
// CLI's resume pointer. `agents.runtime_select` copies the selectors of `runtime_config.runtime` (null: the agent
// runs in-process), so a claim tells the two kinds of agents apart without reading JSON.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("runner_tokens")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("created_by", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("runner_tokens_workspace_idx").on("runner_tokens").column("workspace_id").execute();

  await db.schema
    .createTable("runners")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
    .addColumn("runner_key", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("host", "text")
    .addColumn("version", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("last_seen_at", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addUniqueConstraint("runners_workspace_key_unique", ["workspace_id", "runner_key"])
    .execute();
  await db.schema
    .createIndex("runners_online_idx")
    .on("runners")
    .column("last_seen_at")
    .where(sql.ref("status"), "=", "online")
    .execute();

  await db.schema
    .createTable("runtimes")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
    .addColumn("runner_id", "text", (c) => c.notNull().references("runners.id").onDelete("cascade"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("version", "text")
    .addColumn("tags", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("offered", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("max_concurrent_tasks", "integer", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addUniqueConstraint("runtimes_runner_name_unique", ["runner_id", "name"])
    .execute();
  await db.schema.createIndex("runtimes_workspace_idx").on("runtimes").columns(["workspace_id", "status"]).execute();

  // What a runner was handed, kept past its task (an agent's deletion takes its tasks): a heartbeat names each one
  // that was cancelled or went away, and a report repeated after the task ended is answered as the first one was.
  await db.schema
    .createTable("runner_claims")
    .addColumn("task_id", "text", (c) => c.primaryKey())
    .addColumn("runner_id", "text", (c) => c.notNull().references("runners.id").onDelete("cascade"))
    .addColumn("run_id", "text", (c) => c.notNull())
    .addColumn("input_version", "integer", (c) => c.notNull())
    .addColumn("ended", "text")
    .addColumn("claimed_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("runner_claims_runner_idx").on("runner_claims").columns(["runner_id", "ended"]).execute();

  await db.schema.alterTable("agents").addColumn("runtime_select", "text").execute();

  await db.schema.alterTable("tasks").addColumn("runtime_id", "text").execute();
  await db.schema.alterTable("tasks").addColumn("token_hash", "text").execute();
  await db.schema.alterTable("tasks").addColumn("session_id", "text").execute();
  await db.schema.alterTable("tasks").addColumn("work_dir", "text").execute();
  await db.schema
    .createIndex("tasks_token_idx")
    .on("tasks")
    .column("token_hash")
    .where(sql<boolean>`token_hash is not null`)
    .execute();
  await db.schema
    .createIndex("tasks_runtime_idx")
    .on("tasks")
    .columns(["runtime_id", "status"])
    .where(sql<boolean>`runtime_id is not null`)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("tasks_runtime_idx").execute();
  await db.schema.dropIndex("tasks_token_idx").execute();
  for (const column of ["work_dir", "session_id", "token_hash", "runtime_id"]) {
    await db.schema.alterTable("tasks").dropColumn(column).execute();
  }
  await db.schema.alterTable("agents").dropColumn("runtime_select").execute();
  for (const table of ["runner_claims", "runtimes", "runners", "runner_tokens"])
    await db.schema.dropTable(table).execute();
}
