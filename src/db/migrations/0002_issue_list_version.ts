import type { Kysely } from "kysely";

// A per-workspace counter bumped by every change that can alter an issue list page; list pages are cached under it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("workspaces")
    .addColumn("issue_list_version", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("workspaces").dropColumn("issue_list_version").execute();
}
