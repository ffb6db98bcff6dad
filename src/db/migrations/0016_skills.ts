import { type Kysely, PostgresAdapter, sql } from "kysely";

// Skills: a folder of know-how (SKILL.md and the files beside it) stored whole in the database, so every process
// serves the same bytes; agents link to the skills they carry. Deleting a skill unlinks it from every agent.
export async function up(db: Kysely<unknown>): Promise<void> {
  const bytes = db.getExecutor().adapter instanceof PostgresAdapter ? sql`bytea` : sql`blob`;
  await db.schema
    .createTable("skills")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("description", "text", (c) => c.notNull())
    .addColumn("created_by", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addUniqueConstraint("skills_workspace_name_key", ["workspace_id", "name"])
    .execute();

  await db.schema
    .createTable("skill_files")
    .addColumn("skill_id", "text", (c) => c.notNull().references("skills.id").onDelete("cascade"))
    .addColumn("path", "text", (c) => c.notNull())
    .addColumn("size", "integer", (c) => c.notNull())
    .addColumn("sha256", "text", (c) => c.notNull())
    .addColumn("content", bytes, (c) => c.notNull())
    .addPrimaryKeyConstraint("skill_files_pk", ["skill_id", "path"])
    .execute();

  await db.schema
    .createTable("agent_skills")
    .addColumn("agent_id", "text", (c) => c.notNull().references("agents.id").onDelete("cascade"))
    .addColumn("skill_id", "text", (c) => c.notNull().references("skills.id").onDelete("cascade"))
    .addColumn("position", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("agent_skills_pk", ["agent_id", "skill_id"])
    .execute();
  await db.schema.createIndex("agent_skills_skill_idx").on("agent_skills").column("skill_id").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("agent_skills").execute();
  await db.schema.dropTable("skill_files").execute();
  await db.schema.dropTable("skills").execute();
}
