// Every fire of an autopilot, newest first; and "fire now".
import type { Page } from "../api/pagination.ts";
import type { Db } from "../db/index.ts";
import { notFound } from "../http/errors.ts";
import { type FireOutcome, type FireSettings, fire } from "./fire.ts";
import { type AutopilotRun, toRun } from "./rows.ts";
import { getAutopilotRow } from "./service.ts";

export async function listRuns(db: Db, workspaceId: string, autopilotId: string, page: Page): Promise<AutopilotRun[]> {
  const autopilot = await getAutopilotRow(db, workspaceId, autopilotId);
  const rows = await db
    .selectFrom("autopilot_runs")
    .selectAll()
    .where("autopilot_id", "=", autopilot.id)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map(toRun);
}

/** Fires it now (`trigger_kind: manual`), enabled or not; the answer is the run it made. */
export async function fireNow(
  db: Db,
  workspaceId: string,
  autopilotId: string,
  settings: FireSettings,
): Promise<AutopilotRun> {
  const autopilot = await getAutopilotRow(db, workspaceId, autopilotId);
  const outcome: FireOutcome = await fire(
    db,
    {
      workspaceId,
      autopilotId: autopilot.id,
      triggerKind: "manual",
      triggerIndex: null,
      claimKey: null,
      firedAt: new Date(),
      timezone: "UTC",
    },
    settings,
  );
  // Deleted between the read and the fire (a manual fire has no claim to find taken).
  if (outcome.status === "gone" || outcome.status === "duplicate") throw notFound("Autopilot");
  const row = await db
    .selectFrom("autopilot_runs")
    .selectAll()
    .where("id", "=", outcome.runId)
    .executeTakeFirstOrThrow();
  return toRun(row);
}
