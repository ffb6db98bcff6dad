import type { Selectable } from "kysely";
// Agents of a workspace: the records the agent runtime runs (model, instructions, tools) and their live status.
import type { z } from "zod";
import type { Actor } from "../../api/access.ts";
import { getInWorkspace } from "../../api/workspace-rows.ts";
import { inWorkspace } from "../../api/workspace-transaction.ts";
import { hasRole, type Membership } from "../../auth/membership.ts";
import type { AgentStatus } from "../../db/enums.ts";
import type { Db } from "../../db/index.ts";
import type { AgentsTable } from "../../db/schema.ts";
import { fromJson, newId, now, toJson } from "../../db/values.ts";
import { diffFields, insertCreated, recordActivity } from "../../events/activity.ts";
import { forbidden, invalid } from "../../http/errors.ts";
import { withNames } from "../names.ts";
import { requireActorInWorkspace } from "../references.ts";
import { workHooks } from "../work-hooks.ts";
import { type AgentChecks, checkMcpServerUrls, checkStdioServers, checkTools } from "./checks.ts";
import type { agentSchema, CreateAgentInput, UpdateAgentPatch } from "./schemas.ts";
import { showRuntimeConfig, withStoredSecrets } from "./secrets.ts";
import { setSkillsOf, skillIdsOf } from "./skills.ts";

export type { AgentChecks, ToolNameCheck } from "./checks.ts";

/** An agent as the API shows it: its MCP servers' credentials named, never shown (secrets.ts). */
type AgentView = z.infer<typeof agentSchema>;
/** An agent as stored and run, credentials included: never sent to a client as it is (see showAgent). */
export type Agent = Omit<AgentView, "runtime_config" | "skills"> & { runtime_config: Record<string, unknown> };

/** Agents as the API shows them, each with its skills (read in one query). */
export async function showAgents(db: Db, agents: Agent[]): Promise<AgentView[]> {
  const skills = await skillIdsOf(
    db,
    agents.map((agent) => agent.id),
  );
  return agents.map((agent) => ({
    ...agent,
    runtime_config: showRuntimeConfig(agent.runtime_config),
    skills: skills.get(agent.id) ?? [],
  }));
}

export const showAgent = async (db: Db, agent: Agent): Promise<AgentView> =>
  (await showAgents(db, [agent]))[0] as AgentView;

export const toAgent = ({ runtime_select: _, ...row }: Selectable<AgentsTable>): Agent => ({
  ...row,
  tools: fromJson(row.tools, []),
  runtime_config: fromJson(row.runtime_config, {}),
  avatar_url: null,
});

/** The selectors of `runtime_config.runtime` as stored beside it (null: the agent runs in-process). */
function runtimeSelectOf(runtimeConfig: Record<string, unknown> | null): string | null {
  const binding = runtimeConfig?.runtime as { select?: unknown[] } | undefined;
  return binding?.select?.length ? toJson(binding.select) : null;
}

/** `delete` (PostgreSQL, in a transaction) locks the row as deleting it would, until commit. */
export const getAgent = async (db: Db, workspaceId: string, agentId: string, lock?: "delete"): Promise<Agent> =>
  toAgent(await getInWorkspace(db, "agents", workspaceId, agentId, "Agent", lock));

export async function listAgents(
  db: Db,
  workspaceId: string,
  page: { limit: number; offset: number },
  filter: { status?: AgentStatus[] | undefined } = {},
): Promise<Agent[]> {
  let query = db.selectFrom("agents").selectAll().where("workspace_id", "=", workspaceId);
  if (filter.status && filter.status.length > 0) query = query.where("status", "in", filter.status);
  const rows = await query.orderBy("created_at").orderBy("id").limit(page.limit).offset(page.offset).execute();
  return rows.map(toAgent);
}

export async function createAgent(
  db: Db,
  workspaceId: string,
  input: CreateAgentInput,
  actor: Actor,
  checks: AgentChecks = {},
): Promise<Agent> {
  const runtimeConfig = withStoredSecrets(null, input.runtime_config);
  checkStdioServers(null, runtimeConfig, checks);
  await checkMcpServerUrls(runtimeConfig, checks);
  await checkTools(input.tools, checks, { workspaceId, userId: actor.id, agentName: input.name });
  const owner =
    input.owner_type !== undefined && input.owner_id !== undefined
      ? { type: input.owner_type, id: input.owner_id }
      : { type: actor.type, id: actor.id };
  const at = now();
  const row: Selectable<AgentsTable> = {
    id: newId(),
    workspace_id: workspaceId,
    name: input.name,
    description: input.description ?? null,
    instructions: input.instructions ?? null,
    model: input.model ?? null,
    tools: toJson(input.tools),
    status: input.status,
    runtime_mode: input.runtime_mode,
    runtime_config: toJson(runtimeConfig),
    max_concurrent_tasks: input.max_concurrent_tasks,
    owner_type: owner.type,
    owner_id: owner.id,
    created_at: at,
    updated_at: at,
    runtime_select: runtimeSelectOf(runtimeConfig),
    monthly_budget_usd: input.monthly_budget_usd ?? null,
  };
  await inWorkspace(db, workspaceId, async (trx) => {
    await requireActorInWorkspace(trx, workspaceId, owner.type, owner.id);
    await insertCreated(trx, "agents", row, { workspaceId, entityType: "agent", actor, details: { name: row.name } });
    await setSkillsOf(trx, workspaceId, row.id, input.skills);
  });
  return toAgent(row);
}

/** Admins manage every agent; anyone else only the agents they own. */
function requireManager(agent: Agent, by: Membership): void {
  const owns = agent.owner_type === "member" && agent.owner_id === by.userId;
  if (!owns && !hasRole(by.role, "admin")) throw forbidden("Only an admin or the agent's owner can change this agent");
}

export async function updateAgent(
  db: Db,
  by: Membership,
  agentId: string,
  patch: UpdateAgentPatch,
  actor: Actor,
  checks: AgentChecks = {},
): Promise<Agent> {
  // Outside the transaction: it may ask DNS.
  await checkMcpServerUrls(patch.runtime_config, checks);
  if (patch.tools !== undefined && checks.isKnownTool) {
    // Outside the transaction: the registry reads the database itself (SQLite has one connection).
    const current = await getAgent(db, by.workspaceId, agentId);
    requireManager(current, by);
    await checkTools(patch.tools, checks, {
      workspaceId: by.workspaceId,
      userId: by.userId,
      agentName: patch.name ?? current.name,
    });
  }
  return inWorkspace(db, by.workspaceId, async (trx) => {
    const before = await getAgent(trx, by.workspaceId, agentId);
    requireManager(before, by);
    const runtimeConfig =
      patch.runtime_config === undefined ? undefined : withStoredSecrets(before.runtime_config, patch.runtime_config);
    checkStdioServers(before.runtime_config, runtimeConfig, { ...checks, role: by.role });
    if (patch.owner_type && patch.owner_id) {
      if (patch.owner_type === "agent" && patch.owner_id === agentId) {
        throw invalid(["body", "owner_id"], "An agent cannot own itself");
      }
      await requireActorInWorkspace(trx, by.workspaceId, patch.owner_type, patch.owner_id);
    }
    const skillsBefore = (await skillIdsOf(trx, [agentId])).get(agentId) ?? [];
    const changes = diffFields({ ...before, skills: skillsBefore }, { ...patch, runtime_config: runtimeConfig });
    if (Object.keys(changes).length === 0) return before;
    if (changes.skills) await setSkillsOf(trx, by.workspaceId, agentId, patch.skills ?? []);
    if (changes.runtime_config) {
      const { from, to } = changes.runtime_config as { from: Record<string, unknown>; to: Record<string, unknown> };
      changes.runtime_config = { from: showRuntimeConfig(from), to: showRuntimeConfig(to) };
    }
    await trx
      .updateTable("agents")
      .set({
        ...(patch.name !== undefined && { name: patch.name }),
        ...(patch.description !== undefined && { description: patch.description }),
        ...(patch.instructions !== undefined && { instructions: patch.instructions }),
        ...(patch.model !== undefined && { model: patch.model }),
        ...(patch.tools !== undefined && { tools: toJson(patch.tools) }),
        ...(patch.status !== undefined && { status: patch.status }),
        ...(patch.runtime_mode !== undefined && { runtime_mode: patch.runtime_mode }),
        ...(runtimeConfig !== undefined && {
          runtime_config: toJson(runtimeConfig),
          runtime_select: runtimeSelectOf(runtimeConfig),
        }),
        ...(patch.max_concurrent_tasks !== undefined && { max_concurrent_tasks: patch.max_concurrent_tasks }),
        ...(patch.monthly_budget_usd !== undefined && { monthly_budget_usd: patch.monthly_budget_usd }),
        ...(patch.owner_type !== undefined && { owner_type: patch.owner_type }),
        ...(patch.owner_id !== undefined && { owner_id: patch.owner_id }),
        updated_at: now(),
      })
      .where("id", "=", agentId)
      .execute();
    if (changes.monthly_budget_usd) await workHooks().budgetChanged(trx, { workspaceId: by.workspaceId, agentId });
    if (changes.runtime_config || changes.max_concurrent_tasks)
      await workHooks().agentCapacityChanged(trx, { agentId });
    await recordActivity(trx, {
      workspaceId: by.workspaceId,
      entityType: "agent",
      entityId: agentId,
      actor,
      action: "agent.updated",
      details: {
        changes: await withNames(trx, by.workspaceId, changes, {
          owner_id: {
            from: before.owner_type,
            to: patch.owner_type === undefined ? before.owner_type : patch.owner_type,
          },
        }),
      },
    });
    return getAgent(trx, by.workspaceId, agentId);
  });
}

export async function deleteAgent(db: Db, by: Membership, agentId: string, actor: Actor): Promise<void> {
  await inWorkspace(db, by.workspaceId, async (trx) => {
    // The agent's row first, as its DELETE would lock it (db/lock-order.ts): from here on no task of it is queued or
    // claimed, and its running ones end before this goes on, so the hook below stops every one that runs.
    const agent = await getAgent(trx, by.workspaceId, agentId, "delete");
    requireManager(agent, by);
    await recordActivity(trx, {
      workspaceId: by.workspaceId,
      entityType: "agent",
      entityId: agentId,
      actor,
      action: "agent.deleted",
      details: { name: agent.name },
    });
    // Its tasks go with it; running ones are told to stop first.
    await workHooks().agentDeleted(trx, { agentId, actor });
    await trx.deleteFrom("agents").where("id", "=", agentId).execute();
    await trx
      .updateTable("agents")
      .set({ owner_type: null, owner_id: null })
      .where("workspace_id", "=", by.workspaceId)
      .where("owner_type", "=", "agent")
      .where("owner_id", "=", agentId)
      .execute();
  });
}

/**
 * Inside `trx`: moves the agent to `status` unless it is there already, recording `agent.status_changed`.
 * Returns false when nothing changed (same status, no such agent, or the status changed under us). `known`: the
 * status the caller read in this transaction, so it is not read again (read again if it changed meanwhile).
 */
export async function changeAgentStatus(
  trx: Db,
  workspaceId: string,
  agentId: string,
  status: AgentStatus,
  actor: Actor,
  known?: AgentStatus,
): Promise<boolean> {
  const before =
    known === undefined
      ? await trx
          .selectFrom("agents")
          .select("status")
          .where("workspace_id", "=", workspaceId)
          .where("id", "=", agentId)
          .executeTakeFirst()
      : { status: known };
  if (!before || before.status === status) return false;
  const result = await trx
    .updateTable("agents")
    .set({ status, updated_at: now() })
    .where("id", "=", agentId)
    .where("workspace_id", "=", workspaceId)
    .where("status", "=", before.status)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) {
    return known === undefined ? false : changeAgentStatus(trx, workspaceId, agentId, status, actor);
  }
  await recordActivity(trx, {
    workspaceId,
    entityType: "agent",
    entityId: agentId,
    actor,
    action: "agent.status_changed",
    details: { from: before.status, to: status },
  });
  return true;
}
