import { type Kysely, sql } from "kysely";

// The workspace event outbox, its per-workspace sequence counter, webhooks and their delivery attempts.
export async function up(db: Kysely<unknown>): Promise<void> {
  // One row per workspace, bumped (UPDATE … RETURNING) by every event in the change's own transaction. A row of its
  // own rather than a column of `workspaces`: its lock is taken last in a transaction and held only until commit,
  // apart from the workspace row's lock (issue numbers, list versions), so the two never wait on each other in a cycle.
  await db.schema
    .createTable("event_counters")
    .addColumn("workspace_id", "text", (c) => c.primaryKey().references("workspaces.id").onDelete("cascade"))
    .addColumn("last_seq", "integer", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("events")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("seq", "integer", (c) => c.notNull())
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("entity_type", "text", (c) => c.notNull())
    .addColumn("entity_id", "text")
    .addColumn("issue_id", "text")
    .addColumn("actor_type", "text", (c) => c.notNull())
    .addColumn("actor_id", "text")
    .addColumn("data", "text", (c) => c.notNull().defaultTo("{}"))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addUniqueConstraint("events_workspace_seq_unique", ["workspace_id", "seq"])
    .execute();

  await db.schema
    .createTable("webhooks")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("types", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("enabled", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("secret", "text", (c) => c.notNull())
    // The outbox position up to which attempts have been queued for this hook.
    .addColumn("last_seq", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("failing_since", "text")
    .addColumn("disabled_reason", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("webhooks_workspace_idx")
    .on("webhooks")
    .columns(["workspace_id", "created_at"])
    .execute();

  // One row per attempt to deliver one event to one hook; the queue is the rows still `pending`.
  await db.schema
    .createTable("webhook_deliveries")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("webhook_id", "text", (c) => c.notNull().references("webhooks.id").onDelete("cascade"))
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("event_id", "text", (c) => c.notNull().references("events.id").onDelete("cascade"))
    .addColumn("attempt", "integer", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("next_attempt_at", "text", (c) => c.notNull())
    .addColumn("lease_token", "text")
    .addColumn("lease_expires_at", "text")
    .addColumn("response_status", "integer")
    .addColumn("error", "text")
    .addColumn("duration_ms", "integer")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("finished_at", "text")
    .execute();
  await db.schema
    .createIndex("webhook_deliveries_hook_idx")
    .on("webhook_deliveries")
    .columns(["webhook_id", "created_at", "id"])
    .execute();
  await db.schema
    .createIndex("webhook_deliveries_due_idx")
    .on("webhook_deliveries")
    .columns(["next_attempt_at"])
    .where(sql.ref("status"), "=", "pending")
    .execute();
  await db.schema.createIndex("webhook_deliveries_event_idx").on("webhook_deliveries").column("event_id").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ["webhook_deliveries", "webhooks", "events", "event_counters"]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
