import type { Kysely } from "kysely";

// Column types are the portable subset of SQLite and PostgreSQL: text, integer, double precision.
// Foreign keys cascade so deleting a workspace (or an issue) removes what hangs from it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("users")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("email_key", "text", (c) => c.notNull().unique())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("password_hash", "text", (c) => c.notNull())
    .addColumn("avatar_url", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("workspaces")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("slug", "text", (c) => c.notNull().unique())
    .addColumn("description", "text")
    .addColumn("settings", "text", (c) => c.notNull().defaultTo("{}"))
    .addColumn("issue_prefix", "text", (c) => c.notNull().defaultTo("ISS"))
    .addColumn("issue_counter", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("members")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("role", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addUniqueConstraint("members_workspace_user_unique", ["workspace_id", "user_id"])
    .execute();
  await db.schema.createIndex("members_user_idx").on("members").column("user_id").execute();

  await db.schema
    .createTable("projects")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("description", "text")
    .addColumn("icon", "text")
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("lead_type", "text")
    .addColumn("lead_id", "text")
    .addColumn("creator_id", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("projects_workspace_idx")
    .on("projects")
    .columns(["workspace_id", "created_at"])
    .execute();

  await db.schema
    .createTable("issues")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
    .addColumn("project_id", "text", (c) => c.references("projects.id").onDelete("set null"))
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("description", "text")
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("priority", "text", (c) => c.notNull())
    .addColumn("assignee_type", "text")
    .addColumn("assignee_id", "text")
    .addColumn("creator_type", "text", (c) => c.notNull())
    .addColumn("creator_id", "text")
    .addColumn("number", "integer", (c) => c.notNull())
    .addColumn("parent_issue_id", "text", (c) => c.references("issues.id").onDelete("set null"))
    .addColumn("acceptance_criteria", "text")
    .addColumn("position", "double precision", (c) => c.notNull().defaultTo(0))
    .addColumn("due_date", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addUniqueConstraint("issues_workspace_number_unique", ["workspace_id", "number"])
    .execute();
  await db.schema
    .createIndex("issues_workspace_order_idx")
    .on("issues")
    .columns(["workspace_id", "position", "created_at", "id"])
    .execute();

  await db.schema
    .createTable("comments")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
    .addColumn("issue_id", "text", (c) => c.notNull().references("issues.id").onDelete("cascade"))
    .addColumn("parent_id", "text", (c) => c.references("comments.id").onDelete("cascade"))
    .addColumn("author_type", "text", (c) => c.notNull())
    .addColumn("author_id", "text")
    .addColumn("content", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("comments_issue_idx").on("comments").columns(["issue_id", "created_at"]).execute();

  await db.schema
    .createTable("labels")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("color", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addUniqueConstraint("labels_workspace_name_unique", ["workspace_id", "name"])
    .execute();

  await db.schema
    .createTable("issue_labels")
    .addColumn("issue_id", "text", (c) => c.notNull().references("issues.id").onDelete("cascade"))
    .addColumn("label_id", "text", (c) => c.notNull().references("labels.id").onDelete("cascade"))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("issue_labels_pk", ["issue_id", "label_id"])
    .execute();
  await db.schema.createIndex("issue_labels_label_idx").on("issue_labels").column("label_id").execute();

  await db.schema
    .createTable("issue_dependencies")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
    .addColumn("issue_id", "text", (c) => c.notNull().references("issues.id").onDelete("cascade"))
    .addColumn("depends_on_issue_id", "text", (c) => c.notNull().references("issues.id").onDelete("cascade"))
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addUniqueConstraint("issue_dependencies_unique", ["issue_id", "depends_on_issue_id", "type"])
    .execute();
  await db.schema
    .createIndex("issue_dependencies_target_idx")
    .on("issue_dependencies")
    .column("depends_on_issue_id")
    .execute();

  await db.schema
    .createTable("agents")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("description", "text")
    .addColumn("instructions", "text")
    .addColumn("model", "text")
    .addColumn("tools", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("runtime_mode", "text", (c) => c.notNull())
    .addColumn("runtime_config", "text", (c) => c.notNull().defaultTo("{}"))
    .addColumn("max_concurrent_tasks", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("owner_type", "text")
    .addColumn("owner_id", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("agents_workspace_idx").on("agents").columns(["workspace_id", "created_at"]).execute();

  await db.schema
    .createTable("activity")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
    .addColumn("entity_type", "text", (c) => c.notNull())
    .addColumn("entity_id", "text")
    .addColumn("issue_id", "text")
    .addColumn("actor_type", "text", (c) => c.notNull())
    .addColumn("actor_id", "text")
    .addColumn("action", "text", (c) => c.notNull())
    .addColumn("details", "text", (c) => c.notNull().defaultTo("{}"))
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("activity_workspace_idx")
    .on("activity")
    .columns(["workspace_id", "created_at"])
    .execute();
  await db.schema.createIndex("activity_issue_idx").on("activity").columns(["issue_id", "created_at"]).execute();

  await db.schema
    .createTable("api_keys")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("prefix", "text", (c) => c.notNull())
    .addColumn("key_hash", "text", (c) => c.notNull().unique())
    .addColumn("created_by", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("last_used_at", "text")
    .execute();

  await db.schema
    .createTable("agent_threads")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("scope", "text", (c) => c.notNull())
    .addColumn("thread_id", "text", (c) => c.notNull())
    .addColumn("agent_id", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addUniqueConstraint("agent_threads_scope_thread_unique", ["scope", "thread_id"])
    .execute();

  await db.schema
    .createTable("thread_messages")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("thread_row_id", "text", (c) => c.notNull().references("agent_threads.id").onDelete("cascade"))
    .addColumn("seq", "integer", (c) => c.notNull())
    .addColumn("message_id", "text", (c) => c.notNull())
    .addColumn("role", "text", (c) => c.notNull())
    .addColumn("content", "text")
    .addColumn("tool_calls", "text")
    .addColumn("tool_call_id", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addUniqueConstraint("thread_messages_seq_unique", ["thread_row_id", "seq"])
    .execute();

  await db.schema
    .createTable("calls")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("call_sid", "text")
    .addColumn("stream_sid", "text")
    .addColumn("started_at", "text", (c) => c.notNull())
    .addColumn("ended_at", "text")
    .execute();

  await db.schema
    .createTable("call_transcripts")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("call_id", "text", (c) => c.notNull().references("calls.id").onDelete("cascade"))
    .addColumn("seq", "integer", (c) => c.notNull())
    .addColumn("speaker", "text", (c) => c.notNull())
    .addColumn("text", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    "call_transcripts",
    "calls",
    "thread_messages",
    "agent_threads",
    "api_keys",
    "activity",
    "agents",
    "issue_dependencies",
    "issue_labels",
    "labels",
    "comments",
    "issues",
    "projects",
    "members",
    "workspaces",
    "users",
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
