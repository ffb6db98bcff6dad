// The names activity entries carry beside the ids they mention (an assignee's, a project's, a parent issue's...),
// resolved when the entry is written: the log, the event stream and webhooks then read "assigned Ada" in one query,
// and keep reading it after Ada leaves or the project is deleted. The ids stay in the entry too.
import type { Db } from "../db/index.ts";

/** What an id in an entry names: a member (a user id), an agent, a project or an issue of the workspace. */
type NamedKind = "member" | "agent" | "project" | "issue";

/**
 * The thing's display name: a member's or agent's name, a project's title, an issue's `<identifier> <title>`.
 * Null for no id, or for one that names nothing (any more).
 */
export async function nameOf(
  db: Db,
  workspaceId: string,
  kind: NamedKind | null,
  id: string | null,
): Promise<string | null> {
  if (kind === null || id === null) return null;
  switch (kind) {
    // A user's name, not their membership's: the entry still names someone who has left.
    case "member": {
      const user = await db.selectFrom("users").select("name").where("id", "=", id).executeTakeFirst();
      return user?.name ?? null;
    }
    case "agent": {
      const agent = await db
        .selectFrom("agents")
        .select("name")
        .where("workspace_id", "=", workspaceId)
        .where("id", "=", id)
        .executeTakeFirst();
      return agent?.name ?? null;
    }
    case "project": {
      const project = await db
        .selectFrom("projects")
        .select("title")
        .where("workspace_id", "=", workspaceId)
        .where("id", "=", id)
        .executeTakeFirst();
      return project?.title ?? null;
    }
    case "issue": {
      const issue = await db
        .selectFrom("issues")
        .innerJoin("workspaces", "workspaces.id", "issues.workspace_id")
        .select(["workspaces.issue_prefix", "issues.number", "issues.title"])
        .where("issues.workspace_id", "=", workspaceId)
        .where("issues.id", "=", id)
        .executeTakeFirst();
      return issue ? issueName({ identifier: `${issue.issue_prefix}-${issue.number}`, title: issue.title }) : null;
    }
  }
}

/** How an entry names an issue: `ISS-3 Fix the login`. */
const issueName = (issue: { identifier: string; title: string }): string => `${issue.identifier} ${issue.title}`;

type Changes = Record<string, { from: unknown; to: unknown }>;

/** For each named field: what its old and new ids name (the kinds may differ, e.g. a member then an agent). */
type NamedFields = Record<string, { from: NamedKind | null; to: NamedKind | null }>;

/** `changes` with `from_name` and `to_name` beside `from` and `to` for each of `fields` that changed. */
export async function withNames(db: Db, workspaceId: string, changes: Changes, fields: NamedFields): Promise<Changes> {
  const named: Changes = { ...changes };
  for (const [field, kinds] of Object.entries(fields)) {
    const change = changes[field];
    if (!change) continue;
    named[field] = {
      ...change,
      from_name: await nameOf(db, workspaceId, kinds.from, idOf(change.from)),
      to_name: await nameOf(db, workspaceId, kinds.to, idOf(change.to)),
    } as Changes[string];
  }
  return named;
}

const idOf = (value: unknown): string | null => (typeof value === "string" ? value : null);
