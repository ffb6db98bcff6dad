import { type Kysely, sql } from "kysely";

/** The task states in which a task is still open: at most one open task per agent and issue. */
const OPEN = sql<boolean>`status in ('queued', 'running', 'waiting_approval')`;

// Agents at work: tasks (the queue, with leases), the runs that work them with their stored AG-UI events, and the
// approvals a run waits for. A task keeps its issue id after the issue is deleted (the task is cancelled, not lost);
// deleting an agent takes its tasks, runs and approvals with it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("tasks")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
    .addColumn("agent_id", "text", (c) => c.notNull().references("agents.id").onDelete("cascade"))
    .addColumn("issue_id", "text", (c) => c.notNull())
    .addColumn("trigger", "text", (c) => c.notNull())
    .addColumn("comment_id", "text")
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("attempt", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("max_attempts", "integer")
    .addColumn("error", "text")
    .addColumn("run_id", "text")
    .addColumn("input_version", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("resume", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("available_at", "text", (c) => c.notNull())
    .addColumn("lease_owner", "text")
    .addColumn("lease_expires_at", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addColumn("started_at", "text")
    .addColumn("finished_at", "text")
    .execute();
  await db.schema
    .createIndex("tasks_one_open_per_agent_issue")
    .on("tasks")
    .columns(["agent_id", "issue_id"])
    .unique()
    .where(OPEN)
    .execute();
  await db.schema.createIndex("tasks_claim_idx").on("tasks").columns(["status", "available_at"]).execute();
  await db.schema
    .createIndex("tasks_lease_idx")
    .on("tasks")
    .column("lease_expires_at")
    .where(sql<boolean>`lease_owner is not null`)
    .execute();
  await db.schema.createIndex("tasks_agent_status_idx").on("tasks").columns(["agent_id", "status"]).execute();
  await db.schema.createIndex("tasks_workspace_idx").on("tasks").columns(["workspace_id", "created_at"]).execute();
  await db.schema.createIndex("tasks_issue_idx").on("tasks").columns(["issue_id", "created_at"]).execute();

  // A task frame names the sub-issues; nothing else found them without reading the whole workspace.
  await db.schema.createIndex("issues_parent_idx").on("issues").column("parent_issue_id").execute();

  await db.schema
    .createTable("runs")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
    .addColumn("task_id", "text", (c) => c.notNull().references("tasks.id").onDelete("cascade"))
    .addColumn("agent_id", "text", (c) => c.notNull())
    .addColumn("issue_id", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("model", "text", (c) => c.notNull())
    .addColumn("input_tokens", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("output_tokens", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("error", "text")
    .addColumn("comments_seen_until", "text")
    .addColumn("started_at", "text", (c) => c.notNull())
    .addColumn("finished_at", "text")
    .execute();
  await db.schema.createIndex("runs_task_idx").on("runs").columns(["task_id", "started_at"]).execute();

  await db.schema
    .createTable("run_events")
    .addColumn("run_id", "text", (c) => c.notNull().references("runs.id").onDelete("cascade"))
    .addColumn("seq", "integer", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("data", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("run_events_pk", ["run_id", "seq"])
    .execute();

  await db.schema
    .createTable("approvals")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
    .addColumn("task_id", "text", (c) => c.notNull().references("tasks.id").onDelete("cascade"))
    .addColumn("run_id", "text", (c) => c.notNull().references("runs.id").onDelete("cascade"))
    .addColumn("agent_id", "text", (c) => c.notNull())
    .addColumn("issue_id", "text", (c) => c.notNull())
    .addColumn("tool_call_id", "text", (c) => c.notNull())
    .addColumn("tool_name", "text", (c) => c.notNull())
    .addColumn("arguments", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("decided_by", "text")
    .addColumn("comment", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("decided_at", "text")
    .addUniqueConstraint("approvals_run_call_unique", ["run_id", "tool_call_id"])
    .execute();
  await db.schema
    .createIndex("approvals_workspace_idx")
    .on("approvals")
    .columns(["workspace_id", "status", "created_at"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("issues_parent_idx").ifExists().execute();
  for (const table of ["approvals", "run_events", "runs", "tasks"]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
