// What each change tells whom (spec control.md §4), called by the features inside the change's transaction: a
// mention tells the people named, an assignment the person assigned, a failed task the issue's creator and assignee,
// an approval request every member, a budget alert the admins. Who made the change is never told (items.ts).
import type { Db } from "../db/index.ts";
import { addInboxItems, type InboxActor } from "./items.ts";
import { mentionedIn } from "./mentions.ts";

/** An issue as an item names it. */
interface IssueRef {
  id: string;
  identifier: string;
  title: string;
}

const label = (issue: IssueRef | undefined): string => (issue ? `${issue.identifier} ${issue.title}` : "an issue");

/** A member's or an agent's display name; "Someone" for one that is gone. */
async function nameOf(trx: Db, workspaceId: string, actor: InboxActor | null | undefined): Promise<string> {
  if (!actor) return "The platform";
  const row =
    actor.type === "agent"
      ? await trx
          .selectFrom("agents")
          .select("name")
          .where("workspace_id", "=", workspaceId)
          .where("id", "=", actor.id)
          .executeTakeFirst()
      : await trx.selectFrom("users").select("name").where("id", "=", actor.id).executeTakeFirst();
  return row?.name ?? "Someone";
}

async function issueOf(trx: Db, issueId: string) {
  return trx
    .selectFrom("issues")
    .innerJoin("workspaces", "workspaces.id", "issues.workspace_id")
    .select([
      "issues.id",
      "issues.title",
      "issues.number",
      "workspaces.issue_prefix",
      "issues.creator_type",
      "issues.creator_id",
      "issues.assignee_type",
      "issues.assignee_id",
    ])
    .where("issues.id", "=", issueId)
    .executeTakeFirst()
    .then((row) => row && { ...row, identifier: `${row.issue_prefix}-${row.number}` });
}

/** A comment naming people as `@<their name>` tells each of them (not its author). */
export async function tellMentioned(
  trx: Db,
  comment: { workspaceId: string; issue: IssueRef; content: string; author: InboxActor },
): Promise<void> {
  if (!comment.content.includes("@")) return;
  const members = await trx
    .selectFrom("members")
    .innerJoin("users", "users.id", "members.user_id")
    .select(["members.user_id", "users.name"])
    .where("members.workspace_id", "=", comment.workspaceId)
    .execute();
  const named = mentionedIn(comment.content, members).map((member) => member.user_id);
  if (named.length === 0) return;
  const author = await nameOf(trx, comment.workspaceId, comment.author);
  await addInboxItems(
    trx,
    {
      workspaceId: comment.workspaceId,
      kind: "mentioned",
      issueId: comment.issue.id,
      title: `${author} mentioned you on ${label(comment.issue)}`,
      body: comment.content,
      actor: comment.author,
    },
    named,
  );
}

/** An issue newly assigned to a person (created so, or changed to them) tells them, unless they did it. */
export async function tellAssignee(
  trx: Db,
  change: {
    workspaceId: string;
    issue: IssueRef;
    before: { type: string | null; id: string | null } | null;
    after: { type: string | null; id: string | null };
    actor: InboxActor;
  },
): Promise<void> {
  const { before, after } = change;
  if (after.type !== "member" || after.id === null) return;
  if (before?.type === after.type && before.id === after.id) return;
  const actor = await nameOf(trx, change.workspaceId, change.actor);
  await addInboxItems(
    trx,
    {
      workspaceId: change.workspaceId,
      kind: "assigned",
      issueId: change.issue.id,
      title: `${actor} assigned you ${label(change.issue)}`,
      body: null,
      actor: change.actor,
    },
    [after.id],
  );
}

/** A task failed for good: the people who created its issue or are assigned it hear of it. */
export async function tellTaskFailed(
  trx: Db,
  task: { workspaceId: string; issueId: string; taskId: string; agentId: string; error: string | null },
): Promise<void> {
  const issue = await issueOf(trx, task.issueId);
  if (!issue) return;
  const people = [
    issue.creator_type === "member" ? issue.creator_id : null,
    issue.assignee_type === "member" ? issue.assignee_id : null,
  ].filter((id): id is string => id !== null);
  if (people.length === 0) return;
  const agent = await nameOf(trx, task.workspaceId, { type: "agent", id: task.agentId });
  await addInboxItems(
    trx,
    {
      workspaceId: task.workspaceId,
      kind: "task_failed",
      issueId: issue.id,
      taskId: task.taskId,
      title: `${agent}'s task failed on ${label(issue)}`,
      body: task.error,
      actor: { type: "agent", id: task.agentId },
    },
    people,
  );
}

/** A run waits for approvals: every member may decide, so every member hears of each (one item per approval). */
export async function tellApprovalsRequested(
  trx: Db,
  request: {
    workspaceId: string;
    issueId: string;
    taskId: string;
    agentId: string;
    approvals: Array<{ id: string; tool_name: string }>;
  },
): Promise<void> {
  if (request.approvals.length === 0) return;
  const issue = await issueOf(trx, request.issueId);
  const agent = await nameOf(trx, request.workspaceId, { type: "agent", id: request.agentId });
  for (const approval of request.approvals) {
    await addInboxItems(
      trx,
      {
        workspaceId: request.workspaceId,
        kind: "approval_requested",
        issueId: request.issueId,
        taskId: request.taskId,
        sourceId: approval.id,
        title: `${agent} asks to use ${approval.tool_name} on ${label(issue)}`,
        body: null,
        actor: { type: "agent", id: request.agentId },
      },
      "members",
    );
  }
}

/** A budget reached 80 % (warning) or 100 % (exceeded) this month: the workspace's admins and owners hear of it. */
export async function tellBudget(
  trx: Db,
  alert: {
    workspaceId: string;
    level: "warning" | "exceeded";
    agentId: string | null;
    budgetUsd: number;
    spendUsd: number;
    month: string;
  },
): Promise<void> {
  const whose = alert.agentId
    ? `${await nameOf(trx, alert.workspaceId, { type: "agent", id: alert.agentId })}'s monthly budget`
    : "The workspace's monthly budget";
  const usd = (amount: number) => `$${amount.toFixed(2)}`;
  await addInboxItems(
    trx,
    {
      workspaceId: alert.workspaceId,
      kind: alert.level === "warning" ? "budget_warning" : "budget_exceeded",
      title: alert.level === "warning" ? `${whose} is 80 % spent` : `${whose} is spent: runs wait`,
      body: `${usd(alert.spendUsd)} of ${usd(alert.budgetUsd)} spent in ${alert.month}`,
      actor: null,
    },
    "admins",
  );
}

/** An agent asked (ask_human): every member may answer. Answering or cancelling reads the items (markSourceRead). */
export async function tellQuestionAsked(
  trx: Db,
  question: { id: string; workspace_id: string; issue_id: string; task_id: string; agent_id: string; question: string },
): Promise<void> {
  const issue = await issueOf(trx, question.issue_id);
  const agent = await nameOf(trx, question.workspace_id, { type: "agent", id: question.agent_id });
  await addInboxItems(
    trx,
    {
      workspaceId: question.workspace_id,
      kind: "question_asked",
      issueId: question.issue_id,
      taskId: question.task_id,
      sourceId: question.id,
      title: `${agent} asks a question on ${label(issue)}`,
      body: question.question,
      actor: { type: "agent", id: question.agent_id },
    },
    "members",
  );
}
