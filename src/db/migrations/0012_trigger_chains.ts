import type { Kysely } from "kysely";

// Agents triggering agents are bounded (work/trigger-bounds.ts): a task remembers how many agent-made triggers in a
// row led to it (0: a person's change), and an agent's agent-triggered tasks of the last window are counted by index.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("tasks")
    .addColumn("chain_depth", "integer", (column) => column.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex("tasks_agent_created_idx").on("tasks").columns(["agent_id", "created_at"]).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("tasks_agent_created_idx").execute();
  await db.schema.alterTable("tasks").dropColumn("chain_depth").execute();
}
