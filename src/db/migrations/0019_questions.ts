import { type Kysely, sql } from "kysely";

/** The open task states with `waiting_input`: at most one open task per agent and issue. */
const OPEN = sql<boolean>`status in ('queued', 'running', 'waiting_approval', 'waiting_input')`;
const OPEN_BEFORE = sql<boolean>`status in ('queued', 'running', 'waiting_approval')`;
/** Claimable: queued, or waiting with every approval decided and every question answered. */
const CLAIMABLE = sql<boolean>`status = 'queued' or (status in ('waiting_approval', 'waiting_input') and resume = 1)`;
const CLAIMABLE_BEFORE = sql<boolean>`status = 'queued' or (status = 'waiting_approval' and resume = 1)`;

// Questions an agent asks a person (spec control.md §3): a run that calls ask_human waits in `waiting_input` as one
// waiting for approval does. The two partial indexes over open and claimable tasks take the new state in.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("questions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
    .addColumn("task_id", "text", (c) => c.notNull().references("tasks.id").onDelete("cascade"))
    .addColumn("run_id", "text", (c) => c.notNull().references("runs.id").onDelete("cascade"))
    .addColumn("agent_id", "text", (c) => c.notNull())
    .addColumn("issue_id", "text", (c) => c.notNull())
    /** The model's ask_human call (in-process runs); null for a runner's CLI asking through MCP. */
    .addColumn("tool_call_id", "text")
    .addColumn("question", "text", (c) => c.notNull())
    .addColumn("options", "text")
    .addColumn("multiple", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("answer", "text")
    .addColumn("answered_by", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("answered_at", "text")
    .addUniqueConstraint("questions_run_call_unique", ["run_id", "tool_call_id"])
    .execute();
  await db.schema
    .createIndex("questions_workspace_idx")
    .on("questions")
    .columns(["workspace_id", "status", "created_at"])
    .execute();
  await db.schema.createIndex("questions_task_idx").on("questions").columns(["task_id", "status"]).execute();

  await rebuildTaskIndexes(db, OPEN, CLAIMABLE);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await rebuildTaskIndexes(db, OPEN_BEFORE, CLAIMABLE_BEFORE);
  await db.schema.dropTable("questions").execute();
}

/** The two partial indexes on tasks whose conditions name the open statuses, made again with `open` and `claimable`. */
async function rebuildTaskIndexes(db: Kysely<unknown>, open: typeof OPEN, claimable: typeof CLAIMABLE): Promise<void> {
  await db.schema.dropIndex("tasks_one_open_per_agent_issue").execute();
  await db.schema
    .createIndex("tasks_one_open_per_agent_issue")
    .on("tasks")
    .columns(["agent_id", "issue_id"])
    .unique()
    .where(open)
    .execute();
  await db.schema.dropIndex("tasks_claim_order_idx").execute();
  await db.schema
    .createIndex("tasks_claim_order_idx")
    .on("tasks")
    .columns(["urgent desc", "created_at", "id"])
    .where(claimable)
    .execute();
}
