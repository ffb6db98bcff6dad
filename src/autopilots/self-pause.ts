// Self-pause: when the tasks of its last 5 issues all ended `failed`, an autopilot disables itself (with
// `paused_reason` and an `autopilot.paused` event) rather than go on handing out work that fails.
import type { Db } from "../db/index.ts";
import type { AutopilotsTable } from "../db/schema.ts";
import { now } from "../db/values.ts";
import { appendEvent } from "../events/append.ts";

export const FAILURES_TO_PAUSE = 5;

/** Inside the caller's transaction, which holds the autopilot's row. True when it paused. */
export async function pauseIfFailing(trx: Db, autopilot: AutopilotsTable): Promise<boolean> {
  if (Number(autopilot.enabled) !== 1) return false;
  const last = await trx
    .selectFrom("autopilot_runs")
    .select("issue_id")
    .where("autopilot_id", "=", autopilot.id)
    .where("status", "=", "issue_created")
    .where("issue_id", "is not", null)
    .orderBy("created_at", "desc")
    .limit(FAILURES_TO_PAUSE)
    .execute();
  if (last.length < FAILURES_TO_PAUSE) return false;
  const issueIds = last.map((run) => run.issue_id as string);
  const tasks = await trx
    .selectFrom("tasks")
    .select(["issue_id", "status"])
    .where("issue_id", "in", issueIds)
    .where("agent_id", "=", autopilot.agent_id)
    .orderBy("created_at")
    .execute();
  const latest = new Map(tasks.map((task) => [task.issue_id, task.status]));
  if (!issueIds.every((issueId) => latest.get(issueId) === "failed")) return false;
  const reason = `Paused: the tasks of its last ${FAILURES_TO_PAUSE} issues failed`;
  await trx
    .updateTable("autopilots")
    .set({ enabled: 0, paused_reason: reason, next_fire_at: null, updated_at: now() })
    .where("id", "=", autopilot.id)
    .execute();
  await appendEvent(trx, {
    workspaceId: autopilot.workspace_id,
    type: "autopilot.paused",
    entityType: "autopilot",
    entityId: autopilot.id,
    actor: { type: "autopilot", id: autopilot.id },
    data: { name: autopilot.name, reason },
  });
  return true;
}
