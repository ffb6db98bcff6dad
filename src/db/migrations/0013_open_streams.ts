import type { Kysely } from "kysely";

// The long-lived streams open per user, counted over every process for the cap on open streams: each row is held by
// the process serving the stream, renewed while the stream lives, so a killed process's streams lapse.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("open_streams")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("holder", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("open_streams_user_idx").on("open_streams").columns(["user_id", "expires_at"]).execute();
  await db.schema.createIndex("open_streams_holder_idx").on("open_streams").column("holder").execute();
  await db.schema.createIndex("open_streams_expiry_idx").on("open_streams").column("expires_at").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("open_streams").execute();
}
