import { type Kysely, sql } from "kysely";

// Autopilots (an issue template handed to an agent when a trigger fires), every fire kept as a run, and the hashed
// tokens of their webhook triggers.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("autopilots")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("description", "text")
    .addColumn("enabled", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("agent_id", "text", (c) => c.notNull().references("agents.id").onDelete("cascade"))
    .addColumn("project_id", "text", (c) => c.references("projects.id").onDelete("set null"))
    .addColumn("issue", "text", (c) => c.notNull())
    .addColumn("triggers", "text", (c) => c.notNull())
    .addColumn("overlap", "text", (c) => c.notNull())
    .addColumn("paused_reason", "text")
    .addColumn("created_by", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addColumn("last_fired_at", "text")
    .addColumn("next_fire_at", "text")
    // Every schedule fire time up to this one has been handled (fired, or passed over while disabled).
    .addColumn("scheduled_until", "text", (c) => c.notNull())
    // The outbox position up to which its event triggers (and its issues' task outcomes) have been looked at.
    .addColumn("last_seq", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex("autopilots_workspace_idx")
    .on("autopilots")
    .columns(["workspace_id", "created_at", "id"])
    .execute();
  await db.schema
    .createIndex("autopilots_due_idx")
    .on("autopilots")
    .column("next_fire_at")
    .where(sql<boolean>`enabled = 1 and next_fire_at is not null`)
    .execute();
  await db.schema.createIndex("autopilots_agent_idx").on("autopilots").column("agent_id").execute();

  // One row per fire. `claim_key` names what fired it (a schedule's fire time, a webhook's Idempotency-Key, an event),
  // unique per autopilot: the one claim that makes each fire happen at most once, whatever the number of processes.
  await db.schema
    .createTable("autopilot_runs")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("autopilot_id", "text", (c) => c.notNull().references("autopilots.id").onDelete("cascade"))
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("trigger_kind", "text", (c) => c.notNull())
    .addColumn("trigger_index", "integer")
    .addColumn("claim_key", "text")
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("reason", "text")
    .addColumn("issue_id", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addUniqueConstraint("autopilot_runs_claim_unique", ["autopilot_id", "claim_key"])
    .execute();
  await db.schema
    .createIndex("autopilot_runs_autopilot_idx")
    .on("autopilot_runs")
    .columns(["autopilot_id", "created_at", "id"])
    .execute();
  await db.schema.createIndex("autopilot_runs_issue_idx").on("autopilot_runs").column("issue_id").execute();

  await db.schema
    .createTable("autopilot_hook_tokens")
    .addColumn("token_hash", "text", (c) => c.primaryKey())
    .addColumn("autopilot_id", "text", (c) => c.notNull().references("autopilots.id").onDelete("cascade"))
    .addColumn("trigger_index", "integer", (c) => c.notNull())
    .addUniqueConstraint("autopilot_hook_tokens_trigger_unique", ["autopilot_id", "trigger_index"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("autopilot_hook_tokens").execute();
  await db.schema.dropTable("autopilot_runs").execute();
  await db.schema.dropTable("autopilots").execute();
}
