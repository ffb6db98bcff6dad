import { type Kysely, sql } from "kysely";

// Webhook attempts are claimed per hook (a slow receiver only delays itself): the hooks with pending attempts, each
// hook's due attempts in order, and how many each has in flight must all be found by index, however long one hook's
// backlog grows.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex("webhook_deliveries_pending_hook_idx")
    .on("webhook_deliveries")
    .columns(["webhook_id", "next_attempt_at", "id"])
    .where(sql.ref("status"), "=", "pending")
    .execute();
  await db.schema
    .createIndex("webhook_deliveries_leased_idx")
    .on("webhook_deliveries")
    .columns(["webhook_id", "lease_expires_at"])
    .where(sql<boolean>`status = 'pending' and lease_token is not null`)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("webhook_deliveries_leased_idx").execute();
  await db.schema.dropIndex("webhook_deliveries_pending_hook_idx").execute();
}
