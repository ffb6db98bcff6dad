import type { Kysely } from "kysely";

// Rate-limit counters (login failures, registrations) in fixed windows, shared by every process on the database:
// one row per bucket key and window, bumped by an atomic upsert. Rows past `expires_at` are swept now and then.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("rate_limits")
    .addColumn("key", "text", (c) => c.notNull())
    .addColumn("window_start", "text", (c) => c.notNull())
    .addColumn("count", "integer", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("rate_limits_pkey", ["key", "window_start"])
    .execute();
  await db.schema.createIndex("rate_limits_expires_idx").on("rate_limits").column("expires_at").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("rate_limits").execute();
}
