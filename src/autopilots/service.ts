// Autopilots of a workspace: create, read, change, delete, rotate a webhook token. Members read and create; the
// creator and admins change and delete. Every change is one transaction with its activity entry (and event), which
// also wakes every process's scheduler.
import type { Actor } from "../api/access.ts";
import type { Page } from "../api/pagination.ts";
import { getInWorkspace, listInWorkspace } from "../api/workspace-rows.ts";
import { inWorkspace } from "../api/workspace-transaction.ts";
import { hasRole, type Role } from "../auth/membership.ts";
import type { Db } from "../db/index.ts";
import type { AutopilotsTable } from "../db/schema.ts";
import { newId, now, toJson } from "../db/values.ts";
import { deleteRecorded, diffFields, insertCreated, updateRecorded } from "../events/activity.ts";
import { headSeq } from "../events/outbox.ts";
import { forbidden, invalid, notFound } from "../http/errors.ts";
import { dropHookTokens, newHookToken, storeHookToken } from "./hook-tokens.ts";
import { type Autopilot, nextFireAt, type StoredTrigger, toAutopilot, triggersOf } from "./rows.ts";
import type { CreateAutopilotInput, UpdateAutopilotInput } from "./schemas.ts";

type ShownTokens = Map<number, { url: string; token: string }>;

export const getAutopilotRow = (db: Db, workspaceId: string, autopilotId: string): Promise<AutopilotsTable> =>
  getInWorkspace(db, "autopilots", workspaceId, autopilotId, "Autopilot");

export const getAutopilot = async (db: Db, workspaceId: string, autopilotId: string): Promise<Autopilot> =>
  toAutopilot(await getAutopilotRow(db, workspaceId, autopilotId));

/** Oldest first. */
export async function listAutopilots(db: Db, workspaceId: string, page: Page): Promise<Autopilot[]> {
  return (await listInWorkspace(db, "autopilots", workspaceId, page)).map((row) => toAutopilot(row));
}

/** The agent, project and labels a body names must be of this workspace (IDOR rule: else 404). */
async function checkReferences(
  trx: Db,
  workspaceId: string,
  refs: { agent_id?: string | undefined; project_id?: string | null | undefined; labels?: string[] | undefined },
): Promise<void> {
  if (refs.agent_id !== undefined) await getInWorkspace(trx, "agents", workspaceId, refs.agent_id, "Agent");
  if (refs.project_id != null) await getInWorkspace(trx, "projects", workspaceId, refs.project_id, "Project");
  for (const labelId of refs.labels ?? []) await getInWorkspace(trx, "labels", workspaceId, labelId, "Label");
}

/** Tokens for the webhook triggers at `indexes`, stored hashed and returned for the one answer that shows them. */
async function issueTokens(trx: Db, autopilotId: string, indexes: number[], hookBase: string): Promise<ShownTokens> {
  const shown: ShownTokens = new Map();
  for (const index of indexes) {
    const { token, url, hash } = newHookToken(hookBase);
    await storeHookToken(trx, autopilotId, index, hash);
    shown.set(index, { token, url });
  }
  return shown;
}

const webhookIndexes = (triggers: StoredTrigger[]) =>
  triggers.flatMap((trigger, index) => (trigger.kind === "webhook" ? [index] : []));

export async function createAutopilot(
  db: Db,
  workspaceId: string,
  input: CreateAutopilotInput,
  actor: Actor,
  hookBase: string,
): Promise<Autopilot> {
  return inWorkspace(db, workspaceId, async (trx) => {
    await checkReferences(trx, workspaceId, { ...input, labels: input.issue.labels });
    const at = now();
    const row: AutopilotsTable = {
      id: newId(),
      workspace_id: workspaceId,
      name: input.name,
      description: input.description,
      enabled: input.enabled ? 1 : 0,
      agent_id: input.agent_id,
      project_id: input.project_id,
      issue: toJson(input.issue),
      triggers: toJson(input.triggers),
      overlap: input.overlap,
      paused_reason: null,
      created_by: actor.id,
      created_at: at,
      updated_at: at,
      last_fired_at: null,
      next_fire_at: nextFireAt(input.triggers, input.enabled, new Date()),
      scheduled_until: at,
      last_seq: await headSeq(trx, workspaceId),
    };
    await insertCreated(trx, "autopilots", row, {
      workspaceId,
      entityType: "autopilot",
      actor,
      details: { name: row.name, agent_id: row.agent_id },
    });
    const tokens = await issueTokens(trx, row.id, webhookIndexes(input.triggers), hookBase);
    return toAutopilot(row, tokens);
  });
}

/** The creator and admins may change or delete an autopilot. */
function requireOwnerOrAdmin(row: AutopilotsTable, actor: Actor, role: Role): void {
  if (row.created_by !== actor.id && !hasRole(role, "admin")) {
    throw forbidden("Only its creator or an admin may change this autopilot");
  }
}

/** What a change sets on the autopilot, the tokens its answer shows, and its activity entry. */
interface AutopilotChange {
  columns: Partial<AutopilotsTable>;
  tokens: ShownTokens;
  /** `autopilot.updated` unless named. */
  action?: string;
  details: Record<string, unknown>;
}

/**
 * Changes the autopilot (its creator or an admin) in one transaction with its activity entry. `change` says what
 * changes; nothing does when it returns undefined.
 */
async function changeAutopilot(
  db: Db,
  workspaceId: string,
  autopilotId: string,
  actor: Actor,
  role: Role,
  change: (trx: Db, row: AutopilotsTable) => Promise<AutopilotChange | undefined>,
): Promise<Autopilot> {
  return inWorkspace(db, workspaceId, async (trx) => {
    const row = await getAutopilotRow(trx, workspaceId, autopilotId);
    requireOwnerOrAdmin(row, actor, role);
    const changed = await change(trx, row);
    if (!changed) return toAutopilot(row);
    const { columns, tokens, ...entry } = changed;
    await updateRecorded(trx, "autopilots", row.id, columns, { workspaceId, entityType: "autopilot", actor, ...entry });
    return toAutopilot({ ...row, ...columns }, tokens);
  });
}

/**
 * JSON merge patch. Enabling again clears `paused_reason` and starts from the present: no catch-up fire for the
 * time it was off, no events from then.
 */
export async function updateAutopilot(
  db: Db,
  workspaceId: string,
  autopilotId: string,
  patch: UpdateAutopilotInput,
  actor: Actor,
  role: Role,
  hookBase: string,
): Promise<Autopilot> {
  return changeAutopilot(db, workspaceId, autopilotId, actor, role, async (trx, row) => {
    await checkReferences(trx, workspaceId, { ...patch, labels: patch.issue?.labels });
    const before = toAutopilot(row);
    const changes = diffFields(before, patch);
    if (Object.keys(changes).length === 0) return undefined;
    const enabled = patch.enabled ?? before.enabled;
    const enabling = enabled && !before.enabled;
    const triggers = patch.triggers ?? triggersOf(row);
    const at = now();
    const columns: Partial<AutopilotsTable> = {
      ...(patch.name !== undefined && { name: patch.name }),
      ...(patch.description !== undefined && { description: patch.description }),
      ...(patch.agent_id !== undefined && { agent_id: patch.agent_id }),
      ...(patch.project_id !== undefined && { project_id: patch.project_id }),
      ...(patch.issue !== undefined && { issue: toJson(patch.issue) }),
      ...(patch.triggers !== undefined && { triggers: toJson(patch.triggers), scheduled_until: at }),
      ...(patch.overlap !== undefined && { overlap: patch.overlap }),
      enabled: enabled ? 1 : 0,
      ...(enabling && { paused_reason: null, scheduled_until: at, last_seq: await headSeq(trx, workspaceId) }),
      next_fire_at: nextFireAt(triggers, enabled, new Date()),
      updated_at: at,
    };
    let tokens: ShownTokens = new Map();
    if (patch.triggers !== undefined) {
      const old = triggersOf(row);
      const kept = (index: number) => old[index]?.kind === "webhook" && triggers[index]?.kind === "webhook";
      const gone = webhookIndexes(old).filter((index) => !kept(index));
      await dropHookTokens(trx, row.id, gone);
      tokens = await issueTokens(
        trx,
        row.id,
        webhookIndexes(triggers).filter((index) => !kept(index)),
        hookBase,
      );
    }
    return { columns, tokens, details: { name: columns.name ?? row.name, changes } };
  });
}

/** Its runs and webhook tokens go with it; the issues it created stay. */
export async function deleteAutopilot(
  db: Db,
  workspaceId: string,
  autopilotId: string,
  actor: Actor,
  role: Role,
): Promise<void> {
  await inWorkspace(db, workspaceId, async (trx) => {
    const row = await getInWorkspace(trx, "autopilots", workspaceId, autopilotId, "Autopilot", "delete");
    requireOwnerOrAdmin(row, actor, role);
    await deleteRecorded(trx, "autopilots", row.id, {
      workspaceId,
      entityType: "autopilot",
      actor,
      details: { name: row.name },
    });
  });
}

/** A new token for the webhook trigger at `triggerIndex`; the old URL answers 404 from now on. */
export async function rotateHookToken(
  db: Db,
  workspaceId: string,
  autopilotId: string,
  triggerIndex: number,
  actor: Actor,
  role: Role,
  hookBase: string,
): Promise<Autopilot> {
  return changeAutopilot(db, workspaceId, autopilotId, actor, role, async (trx, row) => {
    const trigger = triggersOf(row)[triggerIndex];
    if (!trigger) throw notFound("Trigger");
    if (trigger.kind !== "webhook") throw invalid(["path", "trigger_index"], "Only a webhook trigger has a token");
    return {
      columns: { updated_at: now() },
      tokens: await issueTokens(trx, row.id, [triggerIndex], hookBase),
      action: "autopilot.token_rotated",
      details: { name: row.name, trigger_index: triggerIndex },
    };
  });
}
