import { type Kysely, sql } from "kysely";

// The inbox (spec control.md §4): per-person items, and per person and workspace the number still unread, kept in
// the transaction that adds or reads items, so the count is one small read however many items a person holds.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("inbox_items")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
    .addColumn("kind", "text", (c) => c.notNull())
    // No foreign keys: an item keeps saying what happened after its issue or task is gone.
    .addColumn("issue_id", "text")
    .addColumn("task_id", "text")
    /** The approval or question the item asks about: deciding it reads the item for everyone. */
    .addColumn("source_id", "text")
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("body", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("read_at", "text")
    .execute();
  await db.schema
    .createIndex("inbox_items_user_idx")
    .on("inbox_items")
    .columns(["user_id", "created_at", "id"])
    .execute();
  await db.schema
    .createIndex("inbox_items_unread_idx")
    .on("inbox_items")
    .columns(["user_id", "created_at", "id"])
    .where(sql.ref("read_at"), "is", null)
    .execute();
  await db.schema
    .createIndex("inbox_items_source_idx")
    .on("inbox_items")
    .column("source_id")
    .where(sql.ref("source_id"), "is not", null)
    .execute();

  await db.schema
    .createTable("inbox_unread")
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
    .addColumn("unread", "integer", (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint("inbox_unread_pk", ["user_id", "workspace_id"])
    .execute();
  await db.schema.createIndex("inbox_unread_workspace_idx").on("inbox_unread").column("workspace_id").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("inbox_unread").execute();
  await db.schema.dropTable("inbox_items").execute();
}
