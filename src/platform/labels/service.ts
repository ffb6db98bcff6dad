import type { Actor } from "../../api/access.ts";
import type { Page } from "../../api/pagination.ts";
import { uniqueOr409 } from "../../api/unique.ts";
import { getInWorkspace, listInWorkspace } from "../../api/workspace-rows.ts";
import { inWorkspace } from "../../api/workspace-transaction.ts";
import type { Db } from "../../db/index.ts";
import type { LabelsTable } from "../../db/schema.ts";
import { newId, now } from "../../db/values.ts";
import { deleteRecorded, diffFields, insertCreated, recordActivity, updateRecorded } from "../../events/activity.ts";
import type { EventActor } from "../../events/outbox.ts";
import { changingIssueLists } from "../issues/list-version.ts";
import { getIssue } from "../issues/service.ts";

type Label = LabelsTable;

const NAME_TAKEN = "A label with this name already exists in this workspace";

export const getLabel = (db: Db, workspaceId: string, labelId: string): Promise<Label> =>
  getInWorkspace(db, "labels", workspaceId, labelId, "Label");

/** By name, then id. */
export async function listLabels(db: Db, workspaceId: string, page: Page): Promise<Label[]> {
  return listInWorkspace(db, "labels", workspaceId, page, "name");
}

export async function createLabel(
  db: Db,
  workspaceId: string,
  input: { name: string; color: string },
  actor: Actor,
): Promise<Label> {
  const row: Label = {
    id: newId(),
    workspace_id: workspaceId,
    name: input.name,
    color: input.color,
    created_at: now(),
  };
  return uniqueOr409(NAME_TAKEN, () =>
    inWorkspace(db, workspaceId, async (trx) => {
      await insertCreated(trx, "labels", row, {
        workspaceId,
        entityType: "label",
        actor,
        details: { name: row.name, color: row.color },
      });
      return row;
    }),
  );
}

export async function updateLabel(
  db: Db,
  workspaceId: string,
  labelId: string,
  patch: { name?: string | undefined; color?: string | undefined },
  actor: Actor,
): Promise<Label> {
  return uniqueOr409(NAME_TAKEN, () =>
    inWorkspace(db, workspaceId, async (trx) => {
      const before = await getLabel(trx, workspaceId, labelId);
      const next = {
        ...(patch.name !== undefined && { name: patch.name }),
        ...(patch.color !== undefined && { color: patch.color }),
      };
      const changes = diffFields(before, next);
      if (Object.keys(changes).length === 0) return before;
      await updateRecorded(trx, "labels", before.id, next, {
        workspaceId,
        entityType: "label",
        actor,
        details: { changes },
      });
      return { ...before, ...next };
    }),
  );
}

/** Unlinks the label from every issue, then deletes it. */
export async function deleteLabel(db: Db, workspaceId: string, labelId: string, actor: Actor): Promise<void> {
  await changingIssueLists(db, workspaceId, async (trx) => {
    const label = await getLabel(trx, workspaceId, labelId);
    const unlinked = await trx.deleteFrom("issue_labels").where("label_id", "=", label.id).executeTakeFirst();
    await deleteRecorded(trx, "labels", label.id, {
      workspaceId,
      entityType: "label",
      actor,
      details: { name: label.name, unlinked_issues: Number(unlinked.numDeletedRows) },
    });
  });
}

export async function listIssueLabels(db: Db, workspaceId: string, issueId: string, page: Page): Promise<Label[]> {
  const issue = await getIssue(db, workspaceId, issueId);
  return db
    .selectFrom("labels")
    .innerJoin("issue_labels", "issue_labels.label_id", "labels.id")
    .selectAll("labels")
    .where("issue_labels.issue_id", "=", issue.id)
    .orderBy("labels.name")
    .orderBy("labels.id")
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

/**
 * Puts a label on an issue or takes it off with `change`, which says whether it altered a row. Idempotent: when it
 * did not, nothing is logged.
 */
async function changeLink(
  db: Db,
  workspaceId: string,
  issueId: string,
  labelId: string,
  actor: EventActor,
  action: "label.linked" | "label.unlinked",
  change: (trx: Db, link: { issue_id: string; label_id: string }) => Promise<boolean>,
): Promise<void> {
  await changingIssueLists(db, workspaceId, async (trx) => {
    const issue = await getIssue(trx, workspaceId, issueId);
    const label = await getLabel(trx, workspaceId, labelId);
    if (!(await change(trx, { issue_id: issue.id, label_id: label.id }))) return;
    await recordActivity(trx, {
      workspaceId,
      entityType: "label",
      entityId: label.id,
      issueId: issue.id,
      actor,
      action,
      details: { name: label.name, identifier: issue.identifier },
    });
  });
}

/** Idempotent: linking a label that is already on the issue changes nothing and logs nothing. */
export async function linkLabel(
  db: Db,
  workspaceId: string,
  issueId: string,
  labelId: string,
  actor: EventActor,
): Promise<void> {
  await changeLink(db, workspaceId, issueId, labelId, actor, "label.linked", async (trx, link) => {
    const inserted = await trx
      .insertInto("issue_labels")
      .values({ ...link, created_at: now() })
      .onConflict((oc) => oc.columns(["issue_id", "label_id"]).doNothing())
      .executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
  });
}

/** Idempotent as well: unlinking a label that is not on the issue is a no-op. */
export async function unlinkLabel(
  db: Db,
  workspaceId: string,
  issueId: string,
  labelId: string,
  actor: Actor,
): Promise<void> {
  await changeLink(db, workspaceId, issueId, labelId, actor, "label.unlinked", async (trx, link) => {
    const deleted = await trx
      .deleteFrom("issue_labels")
      .where("issue_id", "=", link.issue_id)
      .where("label_id", "=", link.label_id)
      .executeTakeFirst();
    return Number(deleted.numDeletedRows) > 0;
  });
}
