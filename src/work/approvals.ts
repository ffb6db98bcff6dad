// Approvals: a person's decision on a tool call a run stopped before. Deciding the last pending one of a run (with no
// question open) makes its task claimable again; whichever process claims it resumes the run from its stored thread.

import type { Actor } from "../api/access.ts";
import type { Page } from "../api/pagination.ts";
import { getInWorkspace, listNewestInWorkspace } from "../api/workspace-rows.ts";
import { inWorkspace } from "../api/workspace-transaction.ts";
import { type Db, isPostgres } from "../db/index.ts";
import type { ApprovalsTable } from "../db/schema.ts";
import { fromJson, now } from "../db/values.ts";
import { appendEvent } from "../events/append.ts";
import { conflict } from "../http/errors.ts";
import { markSourceRead } from "../inbox/items.ts";
import { appendRunEvents } from "./run-events.ts";
import type { Approval, ApprovalDecision, ApprovalStatus } from "./schemas.ts";
import { resumeWhenSettled } from "./settled.ts";

export const toApproval = ({ tool_call_id: _call, arguments: args, ...row }: ApprovalsTable): Approval => ({
  ...row,
  arguments: fromJson<unknown>(args, null),
});

export async function getApproval(db: Db, workspaceId: string, approvalId: string): Promise<Approval> {
  return toApproval(await getInWorkspace(db, "approvals", workspaceId, approvalId, "Approval"));
}

/** Newest first. */
export async function listApprovals(
  db: Db,
  workspaceId: string,
  filter: { status?: ApprovalStatus[] | undefined },
  page: Page,
): Promise<Approval[]> {
  const rows = await listNewestInWorkspace(db, "approvals", workspaceId, filter.status, page);
  return rows.map(toApproval);
}

/** Any member decides once; a second decision (or one after the task ended) is a 409. */
export async function decideApproval(
  db: Db,
  workspaceId: string,
  approvalId: string,
  body: ApprovalDecision,
  actor: Actor,
): Promise<Approval> {
  return inWorkspace(db, workspaceId, async (trx) => {
    const before = await getApproval(trx, workspaceId, approvalId);
    // The task row is the lock every writer of this run's waiting state takes: decisions take turns.
    await trx
      .selectFrom("tasks")
      .select("id")
      .where("id", "=", before.task_id)
      .$if(isPostgres(trx), (query) => query.forUpdate())
      .execute();
    const at = now();
    const status = body.decision === "approve" ? "approved" : "denied";
    const comment = body.comment ?? null;
    const decided = await trx
      .updateTable("approvals")
      .set({ status, decided_by: actor.id, comment, decided_at: at })
      .where("id", "=", before.id)
      .where("status", "=", "pending")
      .executeTakeFirst();
    if (Number(decided.numUpdatedRows) === 0) throw conflict("This approval has already been decided");
    const approval: Approval = { ...before, status, decided_by: actor.id, comment, decided_at: at };
    await appendRunEvents(trx, approval.run_id, [{ type: "CUSTOM", name: "approval_decided", value: approval }]);
    await appendEvent(trx, {
      workspaceId,
      type: "approval.decided",
      entityType: "approval",
      entityId: approval.id,
      issueId: approval.issue_id,
      actor,
      data: { task_id: approval.task_id, run_id: approval.run_id, status, tool_name: approval.tool_name },
    });
    await markSourceRead(trx, approval.id);
    await resumeWhenSettled(trx, { taskId: approval.task_id, runId: approval.run_id, at });
    return approval;
  });
}

/** The decision stored for one tool call of a run, if any. */
export async function decisionFor(
  db: Db,
  runId: string,
  toolCallId: string,
): Promise<Pick<ApprovalsTable, "status" | "comment"> | undefined> {
  return db
    .selectFrom("approvals")
    .select(["status", "comment"])
    .where("run_id", "=", runId)
    .where("tool_call_id", "=", toolCallId)
    .executeTakeFirst();
}
