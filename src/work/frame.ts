// The task frame: what a run is told about its issue before it starts (spec §2), and the comments that arrive while
// it works. Read through the platform services, as any member would see the issue.
import type { ThreadMessage } from "../agents/threads.ts";
import type { Db } from "../db/index.ts";
import { newId } from "../db/values.ts";
import type { Agent } from "../platform/agents/service.ts";
import { getIssue, type Issue } from "../platform/issues/service.ts";
import type { TaskRow } from "./queue.ts";

/** The thread shown to a run reads at most this many comments (the newest, when there are more). */
const COMMENT_LIMIT = 200;
const SUB_ISSUE_LIMIT = 200;

const TRIGGER_TEXT: Record<string, string> = {
  assigned: "the issue was assigned to you",
  comment: "a new comment was added to the issue assigned to you",
  mention: "a comment mentions you",
  manual: "a member asked you to work on this issue",
};

interface TaskFrame {
  message: ThreadMessage;
  issue: Issue;
  /** The newest comment shown, so later ones can be told as new. */
  seenUntil: string | null;
}

export async function buildTaskFrame(db: Db, task: TaskRow, agent: Agent): Promise<TaskFrame> {
  const workspaceId = task.workspace_id;
  const issueId = task.issue_id;
  const [issue, labels, subIssues, comments] = await Promise.all([
    getIssue(db, workspaceId, issueId),
    db
      .selectFrom("labels")
      .innerJoin("issue_labels", "issue_labels.label_id", "labels.id")
      .select("labels.name")
      .where("issue_labels.issue_id", "=", issueId)
      .orderBy("labels.name")
      .execute(),
    db
      .selectFrom("issues")
      .select(["number", "title", "status"])
      .where("parent_issue_id", "=", issueId)
      .orderBy("number")
      .limit(SUB_ISSUE_LIMIT)
      .execute(),
    commentsAfter(db, issueId, null),
  ]);
  const parent = issue.parent_issue_id
    ? await getIssue(db, workspaceId, issue.parent_issue_id).catch(() => undefined)
    : undefined;
  const trigger = TRIGGER_TEXT[task.trigger] ?? task.trigger;
  const triggerComment = task.comment_id ? comments.find((comment) => comment.id === task.comment_id) : undefined;
  const lines = [
    `You are ${agent.name}, an agent of this workspace, working on issue ${issue.identifier} (id ${issue.id}).`,
    `Why now: ${trigger}${triggerComment ? ` (comment ${triggerComment.id} by ${authorOf(triggerComment)})` : ""}.`,
    "Use your tools to do the work; what you change is recorded as done by you. Your last answer is posted as your " +
      "comment on the issue, unless you comment yourself.",
    "",
    `# ${issue.identifier}: ${issue.title}`,
    `Status: ${issue.status}. Priority: ${issue.priority}.`,
    `Labels: ${labels.length ? labels.map((label) => label.name).join(", ") : "none"}.`,
  ];
  if (parent) lines.push(`Parent issue: ${parent.identifier} ${parent.title} (${parent.status}).`);
  if (subIssues.length) {
    const prefix = issue.identifier.slice(0, issue.identifier.lastIndexOf("-"));
    lines.push("Sub-issues:", ...subIssues.map((sub) => `- ${prefix}-${sub.number} ${sub.title} (${sub.status})`));
  }
  lines.push("", "## Description", issue.description?.trim() || "(none)");
  if (issue.acceptance_criteria.length) {
    lines.push("", "## Acceptance criteria", ...issue.acceptance_criteria.map((criterion) => `- ${criterion}`));
  }
  lines.push("", "## Comments, oldest first");
  lines.push(...(comments.length ? comments.map(commentLine) : ["(none)"]));
  return {
    message: { id: newId(), message: { role: "user", content: lines.join("\n") } },
    issue,
    seenUntil: comments.at(-1)?.created_at ?? null,
  };
}

interface NewComments {
  /** The comments by anyone but the agent, as a message to the run; undefined if only the agent wrote. */
  message: ThreadMessage | undefined;
  /** Whether the agent itself commented. */
  byAgent: boolean;
  seenUntil: string;
}

/** Comments added since `seenUntil`; undefined when there are none. */
export async function newComments(db: Db, task: TaskRow, seenUntil: string | null): Promise<NewComments | undefined> {
  const fresh = await commentsAfter(db, task.issue_id, seenUntil);
  const last = fresh.at(-1);
  if (!last) return undefined;
  const isAgents = (comment: ThreadComment) => comment.author_type === "agent" && comment.author_id === task.agent_id;
  const others = fresh.filter((comment) => !isAgents(comment));
  const content = ["New comments on the issue since you started, oldest first:", ...others.map(commentLine)];
  return {
    message: others.length ? { id: newId(), message: { role: "user", content: content.join("\n") } } : undefined,
    byAgent: fresh.some(isAgents),
    seenUntil: last.created_at,
  };
}

interface ThreadComment {
  id: string;
  author_type: string;
  author_id: string | null;
  author_name: string | null;
  content: string;
  created_at: string;
}

/**
 * The issue's comments after `seenUntil` (all, for null), oldest first, with their authors' names; past the limit,
 * the newest ones.
 */
async function commentsAfter(db: Db, issueId: string, seenUntil: string | null): Promise<ThreadComment[]> {
  const rows = await db
    .selectFrom("comments")
    .leftJoin("users", (join) =>
      join.onRef("users.id", "=", "comments.author_id").on("comments.author_type", "=", "member"),
    )
    .leftJoin("agents", (join) =>
      join.onRef("agents.id", "=", "comments.author_id").on("comments.author_type", "=", "agent"),
    )
    .select([
      "comments.id",
      "comments.author_type",
      "comments.author_id",
      "comments.content",
      "comments.created_at",
      (eb) => eb.fn.coalesce("users.name", "agents.name").as("author_name"),
    ])
    .where("comments.issue_id", "=", issueId)
    .$if(seenUntil !== null, (query) => query.where("comments.created_at", ">", seenUntil!))
    .orderBy("comments.created_at", "desc")
    .orderBy("comments.id", "desc")
    .limit(COMMENT_LIMIT)
    .execute();
  return rows.reverse();
}

const authorOf = (comment: ThreadComment) => `${comment.author_type} ${comment.author_name ?? "(gone)"}`;

const commentLine = (comment: ThreadComment) =>
  `- [${comment.created_at}] ${authorOf(comment)} (comment ${comment.id}): ${comment.content}`;
