import type { QueryCreator, Selectable } from "kysely";
// Reading one issue, and creating, updating and deleting issues: each change in one transaction with its activity.

import type { Actor } from "../../api/access.ts";
import { hasRole, type Role } from "../../auth/membership.ts";
import type { IssueStatus } from "../../db/enums.ts";
import { type Db, isPostgres } from "../../db/index.ts";
import { holds, noteHeld } from "../../db/lock-order.ts";
import type { Database, IssuesTable } from "../../db/schema.ts";
import { isId, newId, now, toJson } from "../../db/values.ts";
import { deleteRecorded, diffFields, recordActivity } from "../../events/activity.ts";
import type { EventActor } from "../../events/outbox.ts";
import { forbidden, invalid, notFound } from "../../http/errors.ts";
import { tellAssignee } from "../../inbox/notices.ts";
import { withNames } from "../names.ts";
import { getProject } from "../projects/service.ts";
import { patchActorRef } from "../references.ts";
import { workHooks } from "../work-hooks.ts";
import { type Issue, type IssueRow, issueQuery, issueQueryHoldingWorkspace, toIssue } from "./issue-row.ts";
import { changingIssueLists } from "./list-version.ts";
import type { CreateIssueFields, UpdateIssuePatch } from "./schemas.ts";

export type { Issue } from "./issue-row.ts";

/**
 * The issue, if it is of this workspace; otherwise 404 "Issue not found" (also for a parent named in a body).
 * `lock` (PostgreSQL, inside a transaction) holds its row until commit: `share` for a change that adds rows pointing
 * at it (a comment, a dependency), `update` for its deletion. The deletion then waits for those changes or they for
 * it, and whoever comes second sees the outcome: never a deadlock or a foreign-key error between them. A locked read
 * holds the workspace first (db/lock-order.ts) when the transaction does not yet, in the same statement.
 */
export async function getIssue(
  db: Db,
  workspaceId: string,
  issueId: string,
  lock?: "share" | "update",
): Promise<Issue> {
  const row = !isId(issueId)
    ? undefined
    : lock && db.isTransaction
      ? await readLocked(db, workspaceId, issueId, lock)
      : await issueQuery(db, workspaceId).where("issues.id", "=", issueId).executeTakeFirst();
  if (!row) throw notFound("Issue");
  return toIssue(row);
}

async function readLocked(
  trx: Db,
  workspaceId: string,
  issueId: string,
  lock: "share" | "update",
): Promise<IssueRow | undefined> {
  let row: IssueRow | undefined;
  if (!isPostgres(trx)) {
    // SQLite runs one transaction at a time: the join to the workspace asks whether it exists, as holdWorkspace would.
    row = await issueQuery(trx, workspaceId).where("issues.id", "=", issueId).executeTakeFirst();
  } else if (holds(trx, workspaceId)) {
    const query = issueQuery(trx, workspaceId).where("issues.id", "=", issueId);
    row = await (lock === "share" ? query.forShare("issues") : query.forUpdate("issues")).executeTakeFirst();
  } else {
    const query = issueQueryHoldingWorkspace(trx, workspaceId).where("issues.id", "=", issueId);
    row = await (lock === "share" ? query.forShare("issues") : query.forUpdate("issues")).executeTakeFirst();
  }
  if (row) noteHeld(trx, workspaceId);
  return row;
}

/** A parent must be another issue of this workspace, and not one of the issue's own descendants. */
async function checkParent(db: Db, workspaceId: string, parentId: string, issueId?: string): Promise<void> {
  if (parentId === issueId) throw invalid(["body", "parent_issue_id"], "An issue cannot be its own parent");
  let ancestor: string | null = (await getIssue(db, workspaceId, parentId)).parent_issue_id;
  if (issueId === undefined) return;
  for (let depth = 0; ancestor !== null && depth < 10_000; depth++) {
    if (ancestor === issueId) {
      throw invalid(["body", "parent_issue_id"], "The parent issue is a sub-issue of this issue (cycle)");
    }
    const row = await db.selectFrom("issues").select("parent_issue_id").where("id", "=", ancestor).executeTakeFirst();
    ancestor = row?.parent_issue_id ?? null;
  }
}

/**
 * Creates the issue as `actor` (its creator). `recordedAs` is who its activity names when that is not the creator:
 * an autopilot creates issues in its creator's name, under an id it chose (its run names the issue before it exists).
 */
export async function createIssue(
  db: Db,
  workspaceId: string,
  body: CreateIssueFields,
  actor: Actor,
  recordedAs: EventActor = actor,
  issueId: string = newId(),
): Promise<Issue> {
  return changingIssueLists(db, workspaceId, async (trx) => {
    // `!= null`, not truthiness: an empty string is an id that names nothing (404), not an absent one.
    if (body.project_id != null) await getProject(trx, workspaceId, body.project_id);
    if (body.parent_issue_id != null) await checkParent(trx, workspaceId, body.parent_issue_id);
    const assignee = await patchActorRef(
      trx,
      workspaceId,
      "assignee",
      { type: null, id: null },
      {
        type: body.assignee_type,
        id: body.assignee_id,
      },
    );
    const at = now();
    const unnumbered: Omit<Selectable<IssuesTable>, "number"> = {
      id: issueId,
      workspace_id: workspaceId,
      project_id: body.project_id ?? null,
      title: body.title,
      description: body.description ?? null,
      status: body.status,
      priority: body.priority,
      assignee_type: assignee.type,
      assignee_id: assignee.id,
      creator_type: actor.type,
      creator_id: actor.id,
      parent_issue_id: body.parent_issue_id ?? null,
      acceptance_criteria: toJson(body.acceptance_criteria ?? []),
      position: body.position ?? 0,
      due_date: body.due_date ?? null,
      created_at: at,
      updated_at: at,
    };
    const counter = await insertNumbered(trx, unnumbered);
    const issue = toIssue({ ...unnumbered, number: counter.number, issue_prefix: counter.issue_prefix });
    await recordActivity(trx, {
      workspaceId,
      entityType: "issue",
      entityId: issue.id,
      issueId: issue.id,
      actor: recordedAs,
      action: "issue.created",
      details: { title: issue.title, identifier: issue.identifier },
    });
    await workHooks().assigneeChanged(trx, { workspaceId, issueId: issue.id, before: null, after: assignee, actor });
    await tellAssignee(trx, { workspaceId, issue, before: null, after: assignee, actor });
    return issue;
  });
}

/**
 * Inserts the issue under the workspace's next number. Creates in one workspace are serialised by its row lock (taken
 * first): numbers never repeat or skip. On PostgreSQL the counter's bump and the insert are one statement, so the
 * lock, held until commit, waits on one round trip fewer.
 */
async function insertNumbered(
  trx: Db,
  row: Omit<Selectable<IssuesTable>, "number">,
): Promise<{ number: number; issue_prefix: string }> {
  const bump = (db: QueryCreator<Database>) =>
    db
      .updateTable("workspaces")
      .set((eb) => ({ issue_counter: eb("issue_counter", "+", 1) }))
      .where("id", "=", row.workspace_id)
      .returning(["issue_counter", "issue_prefix"]);
  if (isPostgres(trx)) {
    const created = await trx
      .with("counter", bump)
      .with("created", (db) =>
        db
          .insertInto("issues")
          .values({ ...row, number: (eb) => eb.selectFrom("counter").select("issue_counter") })
          .returning("number"),
      )
      .selectFrom(["created", "counter"])
      .select(["created.number", "counter.issue_prefix"])
      .executeTakeFirst();
    if (!created) throw notFound("Workspace");
    return { number: Number(created.number), issue_prefix: created.issue_prefix };
  }
  const counter = await bump(trx).executeTakeFirst();
  if (!counter) throw notFound("Workspace");
  const number = Number(counter.issue_counter);
  await trx
    .insertInto("issues")
    .values({ ...row, number })
    .execute();
  return { number, issue_prefix: counter.issue_prefix };
}

/** Any member may edit an issue. Records `issue.updated` with `details.changes` when something changed. */
export async function updateIssue(
  db: Db,
  workspaceId: string,
  issueId: string,
  body: UpdateIssuePatch,
  actor: Actor,
): Promise<Issue> {
  return changingIssueLists(db, workspaceId, async (trx) => {
    const before = await getIssue(trx, workspaceId, issueId);
    if (body.project_id != null) await getProject(trx, workspaceId, body.project_id);
    if (body.parent_issue_id != null) await checkParent(trx, workspaceId, body.parent_issue_id, before.id);
    const assignee = await patchActorRef(
      trx,
      workspaceId,
      "assignee",
      { type: before.assignee_type, id: before.assignee_id },
      { type: body.assignee_type, id: body.assignee_id },
    );
    const next: Partial<Issue> = {
      ...(body.title !== undefined && { title: body.title }),
      ...(body.description !== undefined && { description: body.description }),
      ...(body.project_id !== undefined && { project_id: body.project_id }),
      ...(body.status !== undefined && { status: body.status }),
      ...(body.priority !== undefined && { priority: body.priority }),
      ...(body.parent_issue_id !== undefined && { parent_issue_id: body.parent_issue_id }),
      ...(body.acceptance_criteria !== undefined && { acceptance_criteria: body.acceptance_criteria ?? [] }),
      ...(body.position !== undefined && { position: body.position }),
      ...(body.due_date !== undefined && { due_date: body.due_date }),
      assignee_type: assignee.type,
      assignee_id: assignee.id,
    };
    const changes = diffFields(before, next);
    if (Object.keys(changes).length === 0) return before;
    const updated_at = now();
    const { acceptance_criteria, ...columns } = next;
    await trx
      .updateTable("issues")
      .set({
        ...columns,
        ...(acceptance_criteria !== undefined && { acceptance_criteria: toJson(acceptance_criteria) }),
        updated_at,
      })
      .where("id", "=", before.id)
      .execute();
    if (changes.priority) await workHooks().priorityChanged(trx, { issueId: before.id, priority: next.priority! });
    await recordActivity(trx, {
      workspaceId,
      entityType: "issue",
      entityId: before.id,
      issueId: before.id,
      actor,
      action: "issue.updated",
      details: {
        identifier: before.identifier,
        changes: await withNames(trx, workspaceId, changes, {
          assignee_id: { from: before.assignee_type, to: assignee.type },
          project_id: { from: "project", to: "project" },
          parent_issue_id: { from: "issue", to: "issue" },
        }),
      },
    });
    await workHooks().assigneeChanged(trx, {
      workspaceId,
      issueId: before.id,
      before: { type: before.assignee_type, id: before.assignee_id },
      after: assignee,
      actor,
    });
    await tellAssignee(trx, {
      workspaceId,
      issue: { ...before, title: next.title ?? before.title },
      before: { type: before.assignee_type, id: before.assignee_id },
      after: assignee,
      actor,
    });
    return { ...before, ...next, updated_at };
  });
}

/** Statuses of an issue no run has started on: a run starting moves it to in_progress. */
export const NOT_STARTED: readonly IssueStatus[] = ["backlog", "todo"];

/**
 * Issues runs have just started on move to in_progress, each as its agent's change (the `issue.updated` entry
 * updateIssue would record), those of one workspace in one transaction: one bump of the issue list version for all (a
 * runner's claim starts several at once). An issue already past todo, or gone, stays as it is.
 */
export async function startIssues(db: Db, workspaceId: string, starts: { issueId: string; agentId: string }[]) {
  if (starts.length === 0) return;
  await changingIssueLists(db, workspaceId, async (trx) => {
    // No row lock needed: every writer of the workspace's issues waits for the bump this transaction holds.
    const moving = await trx
      .selectFrom("issues")
      .innerJoin("workspaces", "workspaces.id", "issues.workspace_id")
      .select(["issues.id", "issues.number", "issues.status", "workspaces.issue_prefix"])
      .where("issues.workspace_id", "=", workspaceId)
      .where(
        "issues.id",
        "in",
        starts.map((start) => start.issueId),
      )
      .where("issues.status", "in", NOT_STARTED)
      .execute();
    if (moving.length === 0) return;
    const updated_at = now();
    await trx
      .updateTable("issues")
      .set({ status: "in_progress", updated_at })
      .where(
        "id",
        "in",
        moving.map((issue) => issue.id),
      )
      .execute();
    for (const issue of moving) {
      const agentId = starts.find((start) => start.issueId === issue.id)!.agentId;
      await recordActivity(trx, {
        workspaceId,
        entityType: "issue",
        entityId: issue.id,
        issueId: issue.id,
        actor: { type: "agent", id: agentId },
        action: "issue.updated",
        details: {
          identifier: `${issue.issue_prefix}-${issue.number}`,
          changes: diffFields({ status: issue.status }, { status: "in_progress" }),
        },
      });
    }
  });
}

export const isCreatorOf = (issue: Issue, actor: Actor): boolean =>
  issue.creator_type === actor.type && issue.creator_id === actor.id;

/**
 * Admins and the issue's creator may delete it. Its comments, label links and dependencies go with it;
 * its sub-issues stay, without a parent.
 */
export async function deleteIssue(
  db: Db,
  workspaceId: string,
  issueId: string,
  actor: Actor,
  role: Role,
): Promise<void> {
  await changingIssueLists(db, workspaceId, async (trx) => {
    const issue = await getIssue(trx, workspaceId, issueId, "update");
    if (!hasRole(role, "admin") && !isCreatorOf(issue, actor)) {
      throw forbidden("Only an admin or the issue's creator may delete it");
    }
    await trx.updateTable("issues").set({ parent_issue_id: null }).where("parent_issue_id", "=", issue.id).execute();
    await trx.deleteFrom("comments").where("issue_id", "=", issue.id).execute();
    await trx.deleteFrom("issue_labels").where("issue_id", "=", issue.id).execute();
    await trx
      .deleteFrom("issue_dependencies")
      .where((eb) => eb.or([eb("issue_id", "=", issue.id), eb("depends_on_issue_id", "=", issue.id)]))
      .execute();
    await deleteRecorded(trx, "issues", issue.id, {
      workspaceId,
      entityType: "issue",
      issueId: issue.id,
      actor,
      details: { title: issue.title, identifier: issue.identifier },
    });
    await workHooks().issueDeleted(trx, { issueId: issue.id, actor });
  });
}
