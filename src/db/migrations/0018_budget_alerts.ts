import type { Kysely } from "kysely";

// The budget alerts sent (spec control.md §2): one `budget.warning` and one `budget.exceeded` per budget and month,
// the row's insert deciding, in the transaction that recorded the spend, which process sends it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("budget_alerts")
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
    /** `workspace`, or the agent's id. */
    .addColumn("scope", "text", (c) => c.notNull())
    .addColumn("month", "text", (c) => c.notNull())
    .addColumn("level", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("budget_alerts_pk", ["workspace_id", "scope", "month", "level"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("budget_alerts").execute();
}
