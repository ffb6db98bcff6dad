// One fire of an autopilot, in one transaction: the claim (a unique run row per what fired it), the overlap and
// hourly-cap checks, the issue created in the creator's name and assigned to the agent (whose task the platform's
// work hooks queue in the same transaction), and the `autopilot.fired|skipped` event. Whatever the number of
// processes, a claim is made once: the loser of a race finds the winner's run and answers `duplicate`.

import type { ExpressionBuilder, QueryCreator } from "kysely";
import type { Db } from "../db/index.ts";
import { isPostgres } from "../db/index.ts";
import { noteHeld } from "../db/lock-order.ts";
import type { AutopilotRunsTable, AutopilotsTable, Database } from "../db/schema.ts";
import { newId, now, timestampAt } from "../db/values.ts";
import { appendEvent } from "../events/append.ts";
import type { EventActor } from "../events/outbox.ts";
import { hasBumped, issueListBump, noteBumped } from "../platform/issues/list-version.ts";
import { createIssue } from "../platform/issues/service.ts";
import { linkLabel } from "../platform/labels/service.ts";
import { templateOf } from "./rows.ts";
import { renderTemplate } from "./template.ts";

export type TriggerKind = AutopilotRunsTable["trigger_kind"];
type RunStatus = AutopilotRunsTable["status"];

export interface Fire {
  workspaceId: string;
  autopilotId: string;
  triggerKind: TriggerKind;
  triggerIndex: number | null;
  /** What fired it, unique per autopilot; null (manual) never collides. */
  claimKey: string | null;
  /** A claim older than this (ISO timestamp) may be made again: webhook Idempotency-Keys hold for 24 h. */
  reclaimBefore?: string;
  firedAt: Date;
  timezone: string;
  payload?: unknown;
  event?: unknown;
}

export type FireOutcome =
  | { status: "issue_created" | "skipped" | "failed"; runId: string; issueId: string | null }
  | { status: "duplicate"; runId: string }
  /** The autopilot is gone, or (for anything but a manual fire) disabled. */
  | { status: "gone" };

export interface FireSettings {
  maxFiresPerHour: number;
}

const CLOSED_STATUSES = ["done", "cancelled"];
const HOUR_MS = 3_600_000;
const RATE_LIMIT = "rate limit";

/** Fires in a transaction of its own, whose first statement bumps the issue list version (lockAutopilot). */
export function fire(db: Db, request: Fire, settings: FireSettings): Promise<FireOutcome> {
  return db.transaction().execute((trx) => fireIn(trx, request, settings));
}

/**
 * Fires inside `trx`: the workspace row (its issue list version bumped, changingIssueLists), the autopilot's agent and
 * then its row are locked first (db/lock-order.ts), so fires of one autopilot run one at a time and see each other's
 * runs.
 */
export async function fireIn(trx: Db, request: Fire, settings: FireSettings): Promise<FireOutcome> {
  const autopilot = await lockAutopilot(trx, request);
  if (!autopilot) return { status: "gone" };
  const disabled = Number(autopilot.enabled) !== 1;
  // A call to a paused autopilot's webhook is answered (and kept) as skipped; other triggers just do not fire.
  if (disabled && request.triggerKind !== "manual" && request.triggerKind !== "webhook") return { status: "gone" };

  const skipReason = disabled && request.triggerKind === "webhook" ? "disabled" : await overlapReason(trx, autopilot);
  const problem = skipReason ? undefined : await missingProject(trx, autopilot);
  // The issue's id is known before the issue: the run is written once, with it.
  const planned: AutopilotRunsTable = {
    id: newId(),
    autopilot_id: autopilot.id,
    workspace_id: autopilot.workspace_id,
    trigger_kind: request.triggerKind,
    trigger_index: request.triggerIndex,
    claim_key: request.claimKey,
    status: skipReason ? "skipped" : problem ? "failed" : "issue_created",
    reason: skipReason ?? problem ?? null,
    issue_id: skipReason || problem ? null : newId(),
    created_at: now(),
  };
  const run = await claim(trx, planned, request.reclaimBefore, settings.maxFiresPerHour);
  if (!run) {
    const first = await trx
      .selectFrom("autopilot_runs")
      .select("id")
      .where("autopilot_id", "=", autopilot.id)
      .where("claim_key", "=", request.claimKey)
      .executeTakeFirstOrThrow();
    return { status: "duplicate", runId: first.id };
  }
  const issueId = run.issue_id;
  const actor: EventActor = { type: "autopilot", id: autopilot.id };
  const base = { workspaceId: autopilot.workspace_id, entityType: "autopilot", entityId: autopilot.id, actor };
  if (run.status === "skipped") {
    await appendEvent(trx, {
      ...base,
      type: "autopilot.skipped",
      data: { name: autopilot.name, run_id: run.id, trigger_kind: run.trigger_kind, reason: run.reason },
    });
    return { status: "skipped", runId: run.id, issueId: null };
  }
  if (issueId === null) return { status: "failed", runId: run.id, issueId: null };

  const template = templateOf(autopilot);
  const context = {
    firedAt: request.firedAt,
    timezone: request.timezone,
    autopilot: autopilot.name,
    trigger: request.triggerKind,
    payload: request.payload,
    event: request.event,
  };
  const title = renderTemplate(template.title, context).trim().slice(0, 500) || autopilot.name;
  const description = template.description === null ? null : renderTemplate(template.description, context);
  const issue = await createIssue(
    trx,
    autopilot.workspace_id,
    {
      title,
      description: description?.slice(0, 100_000) ?? null,
      project_id: autopilot.project_id,
      status: "todo",
      priority: template.priority,
      assignee_type: "agent",
      assignee_id: autopilot.agent_id,
    },
    { type: "member", id: autopilot.created_by },
    actor,
    issueId,
  );
  for (const labelId of await existingLabels(trx, autopilot.workspace_id, template.labels)) {
    await linkLabel(trx, autopilot.workspace_id, issue.id, labelId, actor);
  }
  await appendEvent(trx, {
    ...base,
    issueId: issue.id,
    type: "autopilot.fired",
    data: { name: autopilot.name, run_id: run.id, trigger_kind: run.trigger_kind, issue_id: issue.id },
  });
  return { status: "issue_created", runId: run.id, issueId: issue.id };
}

/**
 * Bumps the workspace's issue list version unless `trx` did already (the first lock it takes, changingIssueLists), then
 * holds the autopilot's agent and row (PostgreSQL) until commit; undefined when gone. On PostgreSQL that is one round
 * trip: each lock is taken in a CTE that the next one reads, so they are taken top down (db/lock-order.ts).
 */
export async function lockAutopilot(
  trx: Db,
  request: Pick<Fire, "workspaceId" | "autopilotId">,
): Promise<AutopilotsTable | undefined> {
  const bumping = !hasBumped(trx, request.workspaceId);
  if (bumping && !isPostgres(trx)) {
    const bumped = await issueListBump(trx, request.workspaceId).executeTakeFirst();
    if (Number(bumped.numUpdatedRows) === 0) return undefined;
  }
  const locked = await lockTopDown(trx, request, bumping);
  // Bumped in that statement whatever it found: the retry below must not bump again.
  if (bumping) noteBumped(trx, request.workspaceId);
  // Its agent changed while this waited for its row: the lock is taken again, with the agent it has now.
  const row = locked ?? (await lockTopDown(trx, request, false));
  if (row) noteHeld(trx, request.workspaceId, { agentId: row.agent_id });
  return row;
}

function lockTopDown(trx: Db, request: Pick<Fire, "workspaceId" | "autopilotId">, bumping: boolean) {
  const postgres = isPostgres(trx);
  return trx
    .with("workspace", (db) =>
      postgres && bumping
        ? issueListBump(db, request.workspaceId).returning("id")
        : db
            .selectFrom("workspaces")
            .select("id")
            .where("id", "=", request.workspaceId)
            .$if(postgres, (query) => query.forKeyShare()),
    )
    .with("agent", (db) =>
      db
        .selectFrom("agents")
        .innerJoin("workspace", "workspace.id", "agents.workspace_id")
        .select("agents.id")
        .where("agents.id", "=", (eb) =>
          eb
            .selectFrom("autopilots")
            .select("agent_id")
            .where("id", "=", request.autopilotId)
            .where("workspace_id", "=", request.workspaceId),
        )
        .$if(postgres, (query) => query.forKeyShare("agents")),
    )
    .selectFrom("autopilots")
    .innerJoin("agent", "agent.id", "autopilots.agent_id")
    .selectAll("autopilots")
    .where("autopilots.id", "=", request.autopilotId)
    .$if(postgres, (query) => query.forNoKeyUpdate("autopilots"))
    .executeTakeFirst();
}

/** `overlap: skip` while its last issue is open (the hourly cap is the claim's: see claim). */
async function overlapReason(trx: Db, autopilot: AutopilotsTable): Promise<string | undefined> {
  if (autopilot.overlap !== "skip") return undefined;
  const last = await trx
    .selectFrom("autopilot_runs as r")
    .innerJoin("issues as i", "i.id", "r.issue_id")
    .select(["i.status", "i.number"])
    .where("r.autopilot_id", "=", autopilot.id)
    .where("r.status", "=", "issue_created")
    .orderBy("r.created_at", "desc")
    .limit(1)
    .executeTakeFirst();
  if (last && !CLOSED_STATUSES.includes(last.status)) return "overlap: its last issue is still open";
  return undefined;
}

/**
 * Inserts the run unless its claim is taken (undefined then), and returns it as written: a run not planned as
 * skipped is written `skipped` with reason "rate limit" instead when the autopilot made `maxFiresPerHour` issues in
 * the last hour, counted in the insert itself (its lock is held: the count sees every fire before it). When it makes
 * an issue, the autopilot's `last_fired_at` moves too (on PostgreSQL in the same statement). A claim older than
 * `reclaimBefore` is released first (the later of two racing releases finds nothing left to release, and its insert
 * then meets the earlier's claim).
 */
async function claim(
  trx: Db,
  planned: AutopilotRunsTable,
  reclaimBefore: string | undefined,
  maxFiresPerHour: number,
): Promise<AutopilotRunsTable | undefined> {
  if (planned.claim_key !== null && reclaimBefore !== undefined) {
    await trx
      .updateTable("autopilot_runs")
      .set({ claim_key: null })
      .where("autopilot_id", "=", planned.autopilot_id)
      .where("claim_key", "=", planned.claim_key)
      .where("created_at", "<", reclaimBefore)
      .execute();
  }
  // A fire skipped already (overlap, disabled) is not counted against the cap; one that fails (its project is gone) is.
  const capped = planned.status !== "skipped";
  const insertRun = (db: QueryCreator<Database>) =>
    db
      .with("recent", (db) =>
        db
          .selectFrom("autopilot_runs")
          .select((eb) => eb.fn.countAll<number>().as("fired"))
          .where("autopilot_id", "=", planned.autopilot_id)
          .where("status", "=", "issue_created")
          .where("created_at", ">", timestampAt(Date.now() - HOUR_MS)),
      )
      .insertInto("autopilot_runs")
      .values(
        capped
          ? {
              ...planned,
              status: (eb) => overCap(eb).then<RunStatus>("skipped").else(planned.status).end(),
              reason: (eb) => overCap(eb).then(RATE_LIMIT).else(planned.reason).end(),
              issue_id: (eb) => overCap(eb).then(null).else(planned.issue_id).end(),
            }
          : planned,
      )
      .onConflict((conflict) => conflict.columns(["autopilot_id", "claim_key"]).doNothing())
      .returning(["status", "reason", "issue_id"]);
  const overCap = (eb: ExpressionBuilder<Database & { recent: { fired: number } }, "autopilot_runs">) =>
    eb.case().when(eb.selectFrom("recent").select("recent.fired"), ">=", maxFiresPerHour);
  let written: Pick<AutopilotRunsTable, "status" | "reason" | "issue_id"> | undefined;
  if (capped && isPostgres(trx)) {
    written = await trx
      .with("claimed", insertRun)
      .with("fired", (db) =>
        db
          .updateTable("autopilots")
          .set({ last_fired_at: planned.created_at })
          .where("id", "=", planned.autopilot_id)
          .where(({ exists, selectFrom }) =>
            exists(selectFrom("claimed").select("claimed.status").where("claimed.status", "=", "issue_created")),
          ),
      )
      .selectFrom("claimed")
      .select(["status", "reason", "issue_id"])
      .executeTakeFirst();
  } else {
    written = await insertRun(trx).executeTakeFirst();
    if (written?.status === "issue_created") {
      await trx
        .updateTable("autopilots")
        .set({ last_fired_at: planned.created_at })
        .where("id", "=", planned.autopilot_id)
        .execute();
    }
  }
  return written && { ...planned, ...written };
}

async function missingProject(trx: Db, autopilot: AutopilotsTable): Promise<string | undefined> {
  if (autopilot.project_id === null) return undefined;
  const project = await trx
    .selectFrom("projects")
    .select("id")
    .where("id", "=", autopilot.project_id)
    .where("workspace_id", "=", autopilot.workspace_id)
    .executeTakeFirst();
  return project ? undefined : "Project not found";
}

async function existingLabels(trx: Db, workspaceId: string, labelIds: string[]): Promise<string[]> {
  if (labelIds.length === 0) return [];
  const rows = await trx
    .selectFrom("labels")
    .select("id")
    .where("workspace_id", "=", workspaceId)
    .where("id", "in", labelIds)
    .execute();
  const found = new Set(rows.map((row) => row.id));
  return labelIds.filter((id) => found.has(id));
}
