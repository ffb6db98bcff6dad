import { type Kysely, sql } from "kysely";

/** The task states a claim looks at: queued, or waiting with every approval decided. */
const CLAIMABLE = sql<boolean>`status = 'queued' or (status = 'waiting_approval' and resume = 1)`;

// Claims take urgent issues first, then the oldest task. Ordered by the priority, a claim had to read and sort
// every claimable task (and its issue) to find the first; with the order on the task row itself, an index in that
// order over claimable tasks only gives the next one at once, however long the queue. `urgent` follows the issue's
// priority while the task is open (work/triggers.ts).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("tasks")
    .addColumn("urgent", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`update tasks set urgent = 1 where status in ('queued', 'running', 'waiting_approval')
    and issue_id in (select id from issues where priority = 'urgent')`.execute(db);
  await db.schema
    .createIndex("tasks_claim_order_idx")
    .on("tasks")
    .columns(["urgent desc", "created_at", "id"])
    .where(CLAIMABLE)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("tasks_claim_order_idx").execute();
  await db.schema.alterTable("tasks").dropColumn("urgent").execute();
}
