// The task frame: what a run is told about its issue before it starts (spec §2), and the comments that arrive while
// it works. Read through the platform services, as any member would see the issue.
import type { ThreadMessage } from "../agents/threads.ts";
import type { Db } from "../db/index.ts";
import { newId } from "../db/values.ts";
import type { Agent } from "../platform/agents/service.ts";
import { type Comment, listComments } from "../platform/comments/service.ts";
import { listIssues } from "../platform/issues/list.ts";
import { getIssue, type Issue } from "../platform/issues/service.ts";
import { listIssueLabels } from "../platform/labels/service.ts";
import type { TaskRow } from "./queue.ts";

/** The thread shown to a run reads at most this many comments (the newest, when there are more). */
const COMMENT_LIMIT = 200;
const PAGE = 200;

const TRIGGER_TEXT: Record<string, string> = {
  assigned: "the issue was assigned to you",
  comment: "a new comment was added to the issue assigned to you",
  mention: "a comment mentions you",
  manual: "a member asked you to work on this issue",
};

export interface TaskFrame {
  message: ThreadMessage;
  issue: Issue;
  /** The newest comment shown, so later ones can be told as new. */
  seenUntil: string | null;
}

export async function buildTaskFrame(db: Db, task: TaskRow, agent: Agent): Promise<TaskFrame> {
  const workspaceId = task.workspace_id;
  const issue = await getIssue(db, workspaceId, task.issue_id);
  const [labels, parent, subIssues, comments] = await Promise.all([
    listIssueLabels(db, workspaceId, issue.id, { limit: PAGE, offset: 0 }),
    issue.parent_issue_id ? getIssue(db, workspaceId, issue.parent_issue_id).catch(() => undefined) : undefined,
    listIssues(db, workspaceId, { parent_issue_id: [issue.id], limit: PAGE, offset: 0 }),
    threadOf(db, issue),
  ]);
  const names = await authorNames(db, comments);
  const trigger = TRIGGER_TEXT[task.trigger] ?? task.trigger;
  const triggerComment = task.comment_id ? comments.find((comment) => comment.id === task.comment_id) : undefined;
  const lines = [
    `You are ${agent.name}, an agent of this workspace, working on issue ${issue.identifier} (id ${issue.id}).`,
    `Why now: ${trigger}${triggerComment ? ` (comment ${triggerComment.id} by ${names.get(triggerComment.id)})` : ""}.`,
    "Use your tools to do the work; what you change is recorded as done by you. Your last answer is posted as your " +
      "comment on the issue, unless you comment yourself.",
    "",
    `# ${issue.identifier}: ${issue.title}`,
    `Status: ${issue.status}. Priority: ${issue.priority}.`,
    `Labels: ${labels.length ? labels.map((label) => label.name).join(", ") : "none"}.`,
  ];
  if (parent) lines.push(`Parent issue: ${parent.identifier} ${parent.title} (${parent.status}).`);
  if (subIssues.length) {
    lines.push("Sub-issues:", ...subIssues.map((sub) => `- ${sub.identifier} ${sub.title} (${sub.status})`));
  }
  lines.push("", "## Description", issue.description?.trim() || "(none)");
  if (issue.acceptance_criteria.length) {
    lines.push("", "## Acceptance criteria", ...issue.acceptance_criteria.map((criterion) => `- ${criterion}`));
  }
  lines.push("", "## Comments, oldest first");
  lines.push(...(comments.length ? comments.map((comment) => commentLine(comment, names)) : ["(none)"]));
  return {
    message: { id: newId(), message: { role: "user", content: lines.join("\n") } },
    issue,
    seenUntil: comments.at(-1)?.created_at ?? null,
  };
}

/**
 * Comments added since `seenUntil`: those by anyone but the agent as a message to the run (none if only the agent
 * wrote), and the new `seenUntil`. Undefined when nothing was added.
 */
export async function newComments(
  db: Db,
  task: TaskRow,
  seenUntil: string | null,
): Promise<{ message: ThreadMessage | undefined; seenUntil: string } | undefined> {
  const fresh = await db
    .selectFrom("comments")
    .selectAll()
    .where("issue_id", "=", task.issue_id)
    .$if(seenUntil !== null, (query) => query.where("created_at", ">", seenUntil!))
    .orderBy("created_at")
    .orderBy("id")
    .limit(COMMENT_LIMIT)
    .execute();
  const last = fresh.at(-1);
  if (!last) return undefined;
  const others = fresh.filter((comment) => !(comment.author_type === "agent" && comment.author_id === task.agent_id));
  if (others.length === 0) return { message: undefined, seenUntil: last.created_at };
  const comments = others as Comment[];
  const names = await authorNames(db, comments);
  const content = [
    "New comments on the issue since you started, oldest first:",
    ...comments.map((comment) => commentLine(comment, names)),
  ];
  return {
    message: { id: newId(), message: { role: "user", content: content.join("\n") } },
    seenUntil: last.created_at,
  };
}

/** The issue's comments oldest first; past the limit, the newest ones. */
async function threadOf(db: Db, issue: Issue): Promise<Comment[]> {
  const comments: Comment[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await listComments(db, issue.workspace_id, issue.id, { limit: PAGE, offset });
    comments.push(...page);
    if (page.length < PAGE) break;
  }
  return comments.slice(-COMMENT_LIMIT);
}

/** `member Alice` / `agent Triage Bot`, by comment id. */
async function authorNames(db: Db, comments: Comment[]): Promise<Map<string, string>> {
  const ids = (type: string) => [
    ...new Set(comments.filter((c) => c.author_type === type && c.author_id).map((c) => c.author_id!)),
  ];
  const [users, agents] = await Promise.all([
    ids("member").length
      ? db.selectFrom("users").select(["id", "name"]).where("id", "in", ids("member")).execute()
      : [],
    ids("agent").length ? db.selectFrom("agents").select(["id", "name"]).where("id", "in", ids("agent")).execute() : [],
  ]);
  const byId = new Map([...users, ...agents].map((row) => [row.id, row.name]));
  return new Map(
    comments.map((comment) => [comment.id, `${comment.author_type} ${byId.get(comment.author_id ?? "") ?? "(gone)"}`]),
  );
}

function commentLine(comment: Comment, names: Map<string, string>): string {
  return `- [${comment.created_at}] ${names.get(comment.id)} (comment ${comment.id}): ${comment.content}`;
}
