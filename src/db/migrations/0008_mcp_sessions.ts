import type { Kysely } from "kysely";

// State that must outlive the process that made it, shared by every process on one database:
// - legacy SSE sessions of the tool protocol: who opened each (owner and a hash of the credential, so any process can
//   check a post), which process holds its stream, and until when (renewed while the stream lives, so a killed
//   process's sessions lapse); messages too large for a NOTIFY payload wait in mcp_session_messages for their holder;
// - runs of agents outside the task queue (agent UI, ask_<agent>) in progress, each held by one process until it
//   ends or its lease lapses, so an agent's status is derived from what every process runs.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("mcp_sessions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("owner", "text", (c) => c.notNull())
    .addColumn("credential_hash", "text")
    .addColumn("user_id", "text")
    .addColumn("workspace_id", "text")
    .addColumn("holder", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("mcp_sessions_holder_idx").on("mcp_sessions").column("holder").execute();
  await db.schema
    .createTable("mcp_session_messages")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("session_id", "text", (c) => c.notNull())
    .addColumn("body", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("agent_live_runs")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("agent_id", "text", (c) => c.notNull().references("agents.id").onDelete("cascade"))
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("holder", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("agent_live_runs_agent_idx").on("agent_live_runs").column("agent_id").execute();
  await db.schema.createIndex("agent_live_runs_expiry_idx").on("agent_live_runs").column("expires_at").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("agent_live_runs").execute();
  await db.schema.dropTable("mcp_session_messages").execute();
  await db.schema.dropTable("mcp_sessions").execute();
}
