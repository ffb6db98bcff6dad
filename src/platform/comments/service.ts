import type { Actor } from "../../api/access.ts";
import type { Page } from "../../api/pagination.ts";
import { inWorkspace } from "../../api/workspace-transaction.ts";
import { hasRole, type Role } from "../../auth/membership.ts";
import type { Db } from "../../db/index.ts";
import type { CommentsTable } from "../../db/schema.ts";
import { isId, newId, now } from "../../db/values.ts";
import { deleteRecorded, insertCreated, updateRecorded } from "../../events/activity.ts";
import { forbidden, notFound } from "../../http/errors.ts";
import { tellMentioned } from "../../inbox/notices.ts";
import { getIssue } from "../issues/service.ts";
import { nameOf } from "../names.ts";
import { workHooks } from "../work-hooks.ts";
import type { CreateCommentFields } from "./schemas.ts";

type Comment = CommentsTable & { type: "comment" };

const toComment = (row: CommentsTable): Comment => ({ ...row, type: "comment" });

async function getComment(db: Db, workspaceId: string, issueId: string, commentId: string): Promise<Comment> {
  const row = isId(commentId)
    ? await db
        .selectFrom("comments")
        .selectAll()
        .where("workspace_id", "=", workspaceId)
        .where("issue_id", "=", issueId)
        .where("id", "=", commentId)
        .executeTakeFirst()
    : undefined;
  if (!row) throw notFound("Comment");
  return toComment(row);
}

/** Oldest first. */
export async function listComments(db: Db, workspaceId: string, issueId: string, page: Page): Promise<Comment[]> {
  const issue = await getIssue(db, workspaceId, issueId);
  const rows = await db
    .selectFrom("comments")
    .selectAll()
    .where("issue_id", "=", issue.id)
    .orderBy("created_at")
    .orderBy("id")
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map(toComment);
}

/**
 * The newest `limit` comments of an issue, oldest first (a long thread as a run should see it). The caller has read
 * the issue in its workspace already (a task's frame).
 */
export async function newestComments(db: Db, issueId: string, limit: number): Promise<Comment[]> {
  const rows = await db
    .selectFrom("comments")
    .selectAll()
    .where("issue_id", "=", issueId)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
  return rows.reverse().map(toComment);
}

/** A reply's parent must be a comment of the same issue. */
export async function addComment(
  db: Db,
  workspaceId: string,
  issueId: string,
  body: CreateCommentFields,
  actor: Actor,
): Promise<Comment> {
  // Inside a transaction of the caller's (a task's end posts the agent's answer with it), or in one of its own, whose
  // first statement, the issue's locked read, holds the workspace too (db/lock-order.ts).
  if (!db.isTransaction) return db.transaction().execute((own) => addComment(own, workspaceId, issueId, body, actor));
  const issue = await getIssue(db, workspaceId, issueId, "share");
  if (body.parent_id != null) await getComment(db, workspaceId, issue.id, body.parent_id);
  const at = now();
  const row: CommentsTable = {
    id: newId(),
    workspace_id: workspaceId,
    issue_id: issue.id,
    parent_id: body.parent_id ?? null,
    author_type: actor.type,
    author_id: actor.id,
    content: body.content,
    created_at: at,
    updated_at: at,
  };
  await insertCreated(db, "comments", row, {
    workspaceId,
    entityType: "comment",
    issueId: issue.id,
    actor,
    details: { identifier: issue.identifier, ...(row.parent_id && { parent_id: row.parent_id }) },
  });
  await workHooks().commentAdded(db, {
    workspaceId,
    issueId: issue.id,
    commentId: row.id,
    content: row.content,
    author: actor,
    assignee: { type: issue.assignee_type, id: issue.assignee_id },
  });
  await tellMentioned(db, { workspaceId, issue, content: row.content, author: actor });
  return toComment(row);
}

function requireAuthorOrAdmin(comment: Comment, actor: Actor, role: Role): void {
  if (hasRole(role, "admin")) return;
  if (comment.author_type === actor.type && comment.author_id === actor.id) return;
  throw forbidden("Only the comment's author or an admin may do this");
}

export async function updateComment(
  db: Db,
  workspaceId: string,
  issueId: string,
  commentId: string,
  content: string,
  actor: Actor,
  role: Role,
): Promise<Comment> {
  return inWorkspace(db, workspaceId, async (trx) => {
    const issue = await getIssue(trx, workspaceId, issueId);
    const before = await getComment(trx, workspaceId, issue.id, commentId);
    requireAuthorOrAdmin(before, actor, role);
    if (before.content === content) return before;
    const updated_at = now();
    await updateRecorded(
      trx,
      "comments",
      before.id,
      { content, updated_at },
      {
        workspaceId,
        entityType: "comment",
        issueId: issue.id,
        actor,
        details: { changes: { content: { from: before.content, to: content } } },
      },
    );
    return { ...before, content, updated_at };
  });
}

/** Replies to the comment go with it. */
export async function deleteComment(
  db: Db,
  workspaceId: string,
  issueId: string,
  commentId: string,
  actor: Actor,
  role: Role,
): Promise<void> {
  await inWorkspace(db, workspaceId, async (trx) => {
    const issue = await getIssue(trx, workspaceId, issueId);
    const comment = await getComment(trx, workspaceId, issue.id, commentId);
    requireAuthorOrAdmin(comment, actor, role);
    await deleteRecorded(trx, "comments", comment.id, {
      workspaceId,
      entityType: "comment",
      issueId: issue.id,
      actor,
      details: {
        author_type: comment.author_type,
        author_id: comment.author_id,
        author_name: await nameOf(trx, workspaceId, comment.author_type, comment.author_id),
      },
    });
  });
}
