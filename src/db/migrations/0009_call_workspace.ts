import type { Kysely } from "kysely";

// A call server started with CALL_WORKSPACE_ID records its calls under that workspace, so the workspace's members can
// read them (API and dashboard). Calls without one stay deployment-level and are shown nowhere, as before.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("calls").addColumn("workspace_id", "text").execute();
  await db.schema.createIndex("calls_workspace_idx").on("calls").columns(["workspace_id", "started_at"]).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("calls_workspace_idx").execute();
  await db.schema.alterTable("calls").dropColumn("workspace_id").execute();
}
