// Agents triggering agents, bounded. Every task carries a chain depth: 0 when a person's change triggered it, the
// depth of the triggering agent's task on the issue plus one when an agent's comment or assignment did. A trigger
// past AGENT_CHAIN_MAX_DEPTH, or past AGENT_TRIGGER_RATE agent-triggered tasks of one agent within
// AGENT_TRIGGER_WINDOW_MS (counted in the tasks table, so every process sees the same count), queues nothing and says
// so in the activity (`task.trigger_stopped`). A person's comment starts again from depth 0, whatever stopped before.
import { sql } from "kysely";
import type { Actor } from "../api/access.ts";
import { type Db, isPostgres } from "../db/index.ts";
import { timestampAt } from "../db/values.ts";
import { recordActivity } from "../events/activity.ts";
import { nameOf } from "../platform/names.ts";
import type { NewTask } from "./queue.ts";

export interface TriggerBounds {
  /** Agent-made triggers in a row on one issue, at most. */
  maxChainDepth: number;
  /** Agent-triggered tasks of one agent per window, at most. */
  rate: number;
  windowMs: number;
}

export type StoppedBy = "chain_depth" | "rate";

/** The chain depth of a task triggered by `actor` on the issue: 0 for a person, one past the agent's own task. */
export async function chainDepthOf(trx: Db, actor: Actor, issueId: string): Promise<number> {
  if (actor.type !== "agent") return 0;
  // The triggering agent's task on the issue: its open one if it has one (there is at most one), else its newest.
  const parent = await trx
    .selectFrom("tasks")
    .select("chain_depth")
    .where("issue_id", "=", issueId)
    .where("agent_id", "=", actor.id)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
  return Number(parent?.chain_depth ?? 0) + 1;
}

/** Which bound, if any, stops a trigger of `depth` for `agentId` (a person's, depth 0, is never stopped). */
export async function boundReached(
  trx: Db,
  agentId: string,
  depth: number,
  bounds: TriggerBounds,
): Promise<StoppedBy | undefined> {
  if (depth === 0) return undefined;
  if (depth > bounds.maxChainDepth) return "chain_depth";
  // Triggers of one agent take turns until commit (PostgreSQL), so processes counting at once cannot both pass.
  if (isPostgres(trx)) {
    await sql`select pg_advisory_xact_lock(hashtextextended(${`agent-trigger:${agentId}`}, 0))`.execute(trx);
  }
  const recent = await trx
    .selectFrom("tasks")
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .where("agent_id", "=", agentId)
    .where("created_at", ">", timestampAt(Date.now() - bounds.windowMs))
    .where("chain_depth", ">", 0)
    .executeTakeFirstOrThrow();
  return Number(recent.count) >= bounds.rate ? "rate" : undefined;
}

/** The activity entry of a trigger a bound stopped, on the issue and naming the agent. */
export async function recordStoppedTrigger(
  trx: Db,
  task: NewTask,
  depth: number,
  stoppedBy: StoppedBy,
  bounds: TriggerBounds,
): Promise<void> {
  const agentName = await nameOf(trx, task.workspaceId, "agent", task.agentId);
  const why =
    stoppedBy === "chain_depth"
      ? `agents have triggered each other ${depth} times in a row on this issue (at most ${bounds.maxChainDepth})`
      : `it was triggered by agents ${bounds.rate} times within ${bounds.windowMs} ms (at most ${bounds.rate})`;
  await recordActivity(trx, {
    workspaceId: task.workspaceId,
    entityType: "agent",
    entityId: task.agentId,
    issueId: task.issueId,
    actor: task.actor,
    action: "task.trigger_stopped",
    details: {
      agent_id: task.agentId,
      agent_name: agentName,
      bound: stoppedBy,
      trigger: task.trigger,
      comment_id: task.commentId,
      chain_depth: depth,
      ...(stoppedBy === "chain_depth"
        ? { max_chain_depth: bounds.maxChainDepth }
        : { rate: bounds.rate, window_ms: bounds.windowMs }),
      message: `No task for ${agentName ?? "the agent"}: ${why}. A person's comment starts the work again.`,
    },
  });
}
