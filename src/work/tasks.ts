// Tasks as members see and change them: lists, one task, a manual task, cancelling.

import type { Actor } from "../api/access.ts";
import type { Page } from "../api/pagination.ts";
import { inWorkspace } from "../api/workspace-transaction.ts";
import { type Db, isPostgres } from "../db/index.ts";
import { isId } from "../db/values.ts";
import { conflict, notFound } from "../http/errors.ts";
import { getAgent } from "../platform/agents/service.ts";
import { getIssue } from "../platform/issues/service.ts";
import { exhaustedBudget } from "../usage/budgets.ts";
import { cancelTask, enqueueTask, type TaskRow } from "./queue.ts";
import type { Task, TaskListQuery } from "./schemas.ts";

/**
 * Which of these tasks (of one workspace) wait for a runtime: queued, of an agent bound to runtimes of which none is
 * online (runtimes/ implements it; server.ts wires it).
 */
export type WaitingForRuntime = (db: Db, workspaceId: string, rows: TaskRow[]) => Promise<Set<string>>;

/** Queued, or waiting with its approvals decided and questions answered: what a claim would take but for a budget. */
const isWaiting = (row: TaskRow) =>
  row.status === "queued" ||
  ((row.status === "waiting_approval" || row.status === "waiting_input") && Number(row.resume) === 1);

/** The agents of these tasks that are at their (or their workspace's) monthly budget. */
async function agentsOverBudget(db: Db, workspaceId: string, rows: TaskRow[]): Promise<Set<string>> {
  const agents = [...new Set(rows.filter(isWaiting).map((row) => row.agent_id))];
  const over = await Promise.all(agents.map(async (id) => ((await exhaustedBudget(db, workspaceId, id)) ? id : "")));
  return new Set(over.filter(Boolean));
}

export class TaskService {
  /** `max_attempts` of a task not claimed yet: what this deployment's TASK_MAX_ATTEMPTS gives it. */
  constructor(
    private readonly db: Db,
    private readonly defaultMaxAttempts: number,
    private readonly waitingForRuntime: WaitingForRuntime = async () => new Set(),
  ) {}

  /** Tasks as shown, each saying whether it waits for a runtime. */
  async show(workspaceId: string, rows: TaskRow[]): Promise<Task[]> {
    const [waiting, overBudget] = await Promise.all([
      this.waitingForRuntime(this.db, workspaceId, rows),
      agentsOverBudget(this.db, workspaceId, rows),
    ]);
    return rows.map((row) => ({
      ...this.toTask(row),
      waiting_for: isWaiting(row) && overBudget.has(row.agent_id) ? "budget" : waiting.has(row.id) ? "runtime" : null,
    }));
  }

  toTask = (row: TaskRow): Task => ({
    id: row.id,
    workspace_id: row.workspace_id,
    agent_id: row.agent_id,
    issue_id: row.issue_id,
    trigger: row.trigger,
    comment_id: row.comment_id,
    status: row.status,
    attempt: Number(row.attempt),
    max_attempts: Number(row.max_attempts ?? this.defaultMaxAttempts),
    error: row.error,
    run_id: row.run_id,
    waiting_for: null,
    created_at: row.created_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
  });

  async get(workspaceId: string, taskId: string, db = this.db): Promise<TaskRow> {
    const row = isId(taskId)
      ? await db
          .selectFrom("tasks")
          .selectAll()
          .where("workspace_id", "=", workspaceId)
          .where("id", "=", taskId)
          .$if(isPostgres(db) && db.isTransaction, (query) => query.forUpdate())
          .executeTakeFirst()
      : undefined;
    if (!row) throw notFound("Task");
    return row;
  }

  /** Newest first. */
  async list(workspaceId: string, query: TaskListQuery): Promise<Task[]> {
    let select = this.db.selectFrom("tasks").selectAll().where("workspace_id", "=", workspaceId);
    if (query.status?.length) select = select.where("status", "in", query.status);
    if (query.agent_id?.length) select = select.where("agent_id", "in", query.agent_id);
    if (query.issue_id?.length) select = select.where("issue_id", "in", query.issue_id);
    if (query.latest) {
      select = select.where(({ exists, not, selectFrom }) =>
        not(
          exists(
            selectFrom("tasks as newer")
              .select("newer.id")
              .whereRef("newer.issue_id", "=", "tasks.issue_id")
              .whereRef("newer.agent_id", "=", "tasks.agent_id")
              .where((eb) =>
                eb.or([
                  eb("newer.created_at", ">", eb.ref("tasks.created_at")),
                  eb.and([
                    eb("newer.created_at", "=", eb.ref("tasks.created_at")),
                    eb("newer.id", ">", eb.ref("tasks.id")),
                  ]),
                ]),
              ),
          ),
        ),
      );
    }
    const rows = await select
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .limit(query.limit)
      .offset(query.offset)
      .execute();
    return this.show(workspaceId, rows);
  }

  /** The tasks of one issue of this workspace, newest first. */
  async listForIssue(workspaceId: string, issueId: string, page: Page): Promise<Task[]> {
    const issue = await getIssue(this.db, workspaceId, issueId);
    return this.list(workspaceId, { ...page, issue_id: [issue.id] });
  }

  /** `POST issues/{id}/tasks`: a task for the agent, or the open one it folds into (`created` false). */
  async createManual(
    workspaceId: string,
    issueId: string,
    agentId: string,
    actor: Actor,
  ): Promise<{ task: Task; created: boolean }> {
    return this.db.transaction().execute(async (trx) => {
      // Held until commit with its workspace, as a comment holds them: the issue's deletion waits for this task, to
      // cancel it.
      const issue = await getIssue(trx, workspaceId, issueId, "share");
      const agent = await getAgent(trx, workspaceId, agentId);
      const queued = await enqueueTask(trx, {
        workspaceId,
        agentId: agent.id,
        issueId: issue.id,
        trigger: "manual",
        commentId: null,
        actor,
      });
      if (!queued) throw notFound("Agent");
      return { task: this.toTask(queued.task), created: queued.created };
    });
  }

  /** Any member may cancel an open task; one that already ended is a 409. */
  async cancel(workspaceId: string, taskId: string, actor: Actor): Promise<Task> {
    return inWorkspace(this.db, workspaceId, async (trx) => {
      const task = await this.get(workspaceId, taskId, trx);
      if (!(await cancelTask(trx, task, actor))) throw conflict(`The task has already ended (${task.status})`);
      return this.toTask(await this.get(workspaceId, taskId, trx));
    });
  }
}
