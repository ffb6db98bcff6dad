// What makes an agent work, called by the platform services inside the transaction of the change itself (so there is
// no assignment without its task and no task without its assignment). Each returns the announcements the service
// makes after its other writes (see Announce). This file is all the platform knows of work.
import type { Db } from "../db/index.ts";
import type { Actor } from "../platform/access.ts";
import { type Announce, announceAll, cancelOpenTasks, enqueueTask } from "./queue.ts";
import { OPEN_TASK_STATUSES } from "./schemas.ts";

export type { Announce } from "./queue.ts";

/** An issue's assignee, as stored: both set or both null. */
export interface Assignee {
  type: string | null;
  id: string | null;
}

const agentOf = (assignee: Assignee | null): string | undefined =>
  assignee?.type === "agent" && assignee.id ? assignee.id : undefined;

/** The issue's assignee changed (or it was created with one): the new agent gets a task, the old one's is cancelled. */
export async function assigneeChanged(
  trx: Db,
  change: { workspaceId: string; issueId: string; before: Assignee | null; after: Assignee; actor: Actor },
): Promise<Announce> {
  const before = agentOf(change.before);
  const after = agentOf(change.after);
  if (before === after) return async () => {};
  const announcements: Announce[] = [];
  // An agent handing its issue on (to someone else, or to nobody) does so as part of its work: its run goes on.
  const handedOnByItself = change.actor.type === "agent" && change.actor.id === before;
  if (before && !handedOnByItself) {
    announcements.push(...(await cancelOpenTasks(trx, { issueId: change.issueId, agentId: before }, change.actor)));
  }
  if (after) {
    const queued = await enqueueTask(trx, {
      workspaceId: change.workspaceId,
      agentId: after,
      issueId: change.issueId,
      trigger: "assigned",
      commentId: null,
      actor: change.actor,
    });
    announcements.push(queued.announce);
  }
  return () => announceAll(announcements);
}

/**
 * A comment: the agent the issue is assigned to gets a task (unless it wrote the comment), and so does every agent
 * the comment names as `@<agent name>` (case-insensitive; spaces in a name may be written as `-`).
 */
export async function commentAdded(
  trx: Db,
  comment: {
    workspaceId: string;
    issueId: string;
    commentId: string;
    content: string;
    author: Actor;
    assignee: Assignee;
  },
): Promise<Announce> {
  const triggers = new Map<string, "comment" | "mention">();
  const assigned = agentOf(comment.assignee);
  if (assigned) triggers.set(assigned, "comment");
  if (comment.content.includes("@")) {
    const agents = await trx
      .selectFrom("agents")
      .select(["id", "name"])
      .where("workspace_id", "=", comment.workspaceId)
      .execute();
    for (const agent of mentionedAgents(comment.content, agents)) triggers.set(agent.id, "mention");
  }
  // The agent's own comments never trigger it.
  if (comment.author.type === "agent") triggers.delete(comment.author.id);
  const announcements: Announce[] = [];
  for (const [agentId, trigger] of triggers) {
    const queued = await enqueueTask(trx, {
      workspaceId: comment.workspaceId,
      agentId,
      issueId: comment.issueId,
      trigger,
      commentId: comment.commentId,
      actor: comment.author,
    });
    announcements.push(queued.announce);
  }
  return () => announceAll(announcements);
}

/** The issue's priority changed: its open tasks wait in the queue by the new one (urgent first). */
export async function priorityChanged(trx: Db, change: { issueId: string; priority: string }): Promise<void> {
  await trx
    .updateTable("tasks")
    .set({ urgent: change.priority === "urgent" ? 1 : 0 })
    .where("issue_id", "=", change.issueId)
    .where("status", "in", [...OPEN_TASK_STATUSES])
    .execute();
}

/** The issue is being deleted: its open tasks are cancelled (and kept, with their runs). */
export async function issueDeleted(trx: Db, change: { issueId: string; actor: Actor }): Promise<Announce> {
  const announcements = await cancelOpenTasks(trx, { issueId: change.issueId }, change.actor);
  return () => announceAll(announcements);
}

/** The agent is being deleted: its running tasks stop (their rows go with the agent). */
export async function agentDeleted(trx: Db, change: { agentId: string; actor: Actor }): Promise<Announce> {
  const announcements = await cancelOpenTasks(trx, { agentId: change.agentId }, change.actor);
  return () => announceAll(announcements);
}

/** The agents a comment names with `@name`; an address such as `ops@bot.example` names nobody. */
export function mentionedAgents<A extends { name: string }>(content: string, agents: A[]): A[] {
  const text = content.toLowerCase();
  return agents.filter((agent) => {
    const name = agent.name.trim().toLowerCase();
    if (name === "") return false;
    return [name, name.replace(/\s+/g, "-")].some((form) => mentions(text, form));
  });
}

const NAME_CHARACTER = /[\p{L}\p{N}_-]/u;

function mentions(text: string, name: string): boolean {
  const needle = `@${name}`;
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) {
    const before = at > 0 ? text[at - 1]! : "";
    const after = text[at + needle.length] ?? "";
    if (!NAME_CHARACTER.test(before) && !NAME_CHARACTER.test(after)) return true;
  }
  return false;
}
