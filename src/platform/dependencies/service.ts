import type { Actor } from "../../api/access.ts";
import type { Page } from "../../api/pagination.ts";
import { uniqueOr409 } from "../../api/unique.ts";
import { inWorkspace } from "../../api/workspace-transaction.ts";
import { hasRole, type Role } from "../../auth/membership.ts";
import type { DependencyType } from "../../db/enums.ts";
import type { Db } from "../../db/index.ts";
import type { IssueDependenciesTable } from "../../db/schema.ts";
import { isId, newId, now } from "../../db/values.ts";
import { deleteRecorded, insertCreated } from "../../events/activity.ts";
import { forbidden, invalid, notFound } from "../../http/errors.ts";
import { issueQuery, toIssue } from "../issues/issue-row.ts";
import { getIssue, isCreatorOf } from "../issues/service.ts";

type Dependency = IssueDependenciesTable;

/** Dependencies in both directions: those of the issue and those on it. Oldest first. */
export async function listDependencies(
  db: Db,
  workspaceId: string,
  issueId: string,
  page: Page,
): Promise<Dependency[]> {
  const issue = await getIssue(db, workspaceId, issueId);
  const rows = await db
    .selectFrom("issue_dependencies")
    .selectAll()
    .where("workspace_id", "=", workspaceId)
    .where((eb) => eb.or([eb("issue_id", "=", issue.id), eb("depends_on_issue_id", "=", issue.id)]))
    .orderBy("created_at")
    .orderBy("id")
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows;
}

export async function createDependency(
  db: Db,
  workspaceId: string,
  issueId: string,
  input: { depends_on_issue_id: string; type: DependencyType },
  actor: Actor,
): Promise<Dependency> {
  return uniqueOr409("This dependency already exists", () =>
    // The issue's locked read, first, holds the workspace too (db/lock-order.ts).
    db.transaction().execute(async (trx) => {
      const issue = await getIssue(trx, workspaceId, issueId, "share");
      if (input.depends_on_issue_id === issue.id) {
        throw invalid(["body", "depends_on_issue_id"], "An issue cannot depend on itself");
      }
      const target = await getIssue(trx, workspaceId, input.depends_on_issue_id, "share");
      const row: Dependency = {
        id: newId(),
        workspace_id: workspaceId,
        issue_id: issue.id,
        depends_on_issue_id: target.id,
        type: input.type,
        created_at: now(),
      };
      await insertCreated(trx, "issue_dependencies", row, {
        workspaceId,
        entityType: "dependency",
        issueId: issue.id,
        actor,
        details: {
          type: row.type,
          depends_on_issue_id: target.id,
          depends_on: target.identifier,
          depends_on_title: target.title,
        },
      });
      return row;
    }),
  );
}

/** Admins, or whoever created both issues, may remove a dependency. */
export async function deleteDependency(
  db: Db,
  workspaceId: string,
  issueId: string,
  dependencyId: string,
  actor: Actor,
  role: Role,
): Promise<void> {
  await inWorkspace(db, workspaceId, async (trx) => {
    const issue = await getIssue(trx, workspaceId, issueId);
    const dependency = isId(dependencyId)
      ? await trx
          .selectFrom("issue_dependencies")
          .selectAll()
          .where("workspace_id", "=", workspaceId)
          .where("id", "=", dependencyId)
          .where((eb) => eb.or([eb("issue_id", "=", issue.id), eb("depends_on_issue_id", "=", issue.id)]))
          .executeTakeFirst()
      : undefined;
    if (!dependency) throw notFound("Dependency");
    if (!hasRole(role, "admin")) {
      const otherId = dependency.issue_id === issue.id ? dependency.depends_on_issue_id : dependency.issue_id;
      const other = await getIssue(trx, workspaceId, otherId);
      if (!isCreatorOf(issue, actor) || !isCreatorOf(other, actor)) {
        throw forbidden("Only an admin or the creator of both issues may remove a dependency");
      }
    }
    await deleteRecorded(trx, "issue_dependencies", dependency.id, {
      workspaceId,
      entityType: "dependency",
      issueId: dependency.issue_id,
      actor,
      details: {
        type: dependency.type,
        depends_on_issue_id: dependency.depends_on_issue_id,
        ...(await dependsOnNames(trx, workspaceId, dependency.depends_on_issue_id)),
      },
    });
  });
}

/** How dependency entries name the issue depended on: its identifier and its title (null if it is gone). */
async function dependsOnNames(db: Db, workspaceId: string, issueId: string) {
  const target = await issueQuery(db, workspaceId).where("issues.id", "=", issueId).executeTakeFirst();
  const issue = target && toIssue(target);
  return { depends_on: issue?.identifier ?? null, depends_on_title: issue?.title ?? null };
}
