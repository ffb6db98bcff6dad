import type { Kysely } from "kysely";

// Media-stream tokens already used, so each works once whichever call process it reaches; rows past their expiry
// are swept (an expired token is refused by its own signed expiry anyway).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("used_stream_tokens")
    .addColumn("token_id", "text", (c) => c.primaryKey())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("used_stream_tokens_expires_idx").on("used_stream_tokens").column("expires_at").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("used_stream_tokens").execute();
}
