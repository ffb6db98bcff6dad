import type { Selectable } from "kysely";
// Runs as members read them: every run of a task is kept with its usage and error.

import type { Page } from "../api/pagination.ts";
import type { Db } from "../db/index.ts";
import type { RunsTable } from "../db/schema.ts";
import { isId } from "../db/values.ts";
import { notFound } from "../http/errors.ts";
import type { Run } from "./schemas.ts";

const toRun = (row: Selectable<RunsTable>): Run => ({
  id: row.id,
  task_id: row.task_id,
  agent_id: row.agent_id,
  issue_id: row.issue_id,
  status: row.status,
  model: row.model,
  started_at: row.started_at,
  finished_at: row.finished_at,
  usage: {
    input_tokens: Number(row.input_tokens),
    output_tokens: Number(row.output_tokens),
    cache_read_tokens: Number(row.cache_read_tokens),
    cache_write_tokens: Number(row.cache_write_tokens),
    cost_usd: row.cost_usd === null ? null : Number(row.cost_usd),
  },
  error: row.error,
});

export async function getRun(db: Db, workspaceId: string, runId: string): Promise<Run> {
  const row = isId(runId)
    ? await db
        .selectFrom("runs")
        .selectAll()
        .where("workspace_id", "=", workspaceId)
        .where("id", "=", runId)
        .executeTakeFirst()
    : undefined;
  if (!row) throw notFound("Run");
  return toRun(row);
}

/** A task's runs, oldest first (one per attempt). */
export async function listTaskRuns(db: Db, taskId: string, page: Page): Promise<Run[]> {
  const rows = await db
    .selectFrom("runs")
    .selectAll()
    .where("task_id", "=", taskId)
    .orderBy("started_at")
    .orderBy("id")
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map(toRun);
}
