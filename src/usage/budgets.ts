// Monthly budgets (spec control.md §2): spend is the month's (UTC) sum of cost_usd, read from the daily rollup. At
// 80 % one `budget.warning` per budget and month; at 100 % no new run starts (claims skip the agent's tasks, which
// wait with `waiting_for: "budget"`) and a run in progress stops before its next model call.
import { type Expression, type SqlBool, sql } from "kysely";
import type { Db } from "../db/index.ts";
import { now } from "../db/values.ts";
import { appendEvent } from "../events/append.ts";
import { tellBudget } from "../inbox/notices.ts";

export const WARNING_SHARE = 0.8;

/** The first day of the current month (UTC), `YYYY-MM-01`, from which the month's spend is summed. */
export const monthStart = (at = new Date()): string => `${at.toISOString().slice(0, 7)}-01`;

/** The month's spend of the workspace, or of one of its agents. */
export async function monthSpend(db: Db, workspaceId: string, agentId?: string, at = new Date()): Promise<number> {
  const row = await db
    .selectFrom("usage_daily")
    .select((eb) => eb.fn.sum<number>("cost_usd").as("spend"))
    .where("workspace_id", "=", workspaceId)
    .$if(agentId !== undefined, (query) => query.where("agent_id", "=", agentId!))
    .where("day", ">=", monthStart(at))
    .executeTakeFirst();
  return Number(row?.spend ?? 0);
}

/**
 * For a claim's candidate query (agents and workspaces joined): the agent and its workspace are within their budgets.
 * Both sums read a month of rollup rows by index, and only where a budget is set.
 */
export function withinBudgets(): Expression<SqlBool> {
  const from = monthStart();
  return sql<SqlBool>`(agents.monthly_budget_usd is null or agents.monthly_budget_usd > (select coalesce(sum(u.cost_usd), 0) from usage_daily u where u.workspace_id = agents.workspace_id and u.agent_id = agents.id and u.day >= ${from}))
    and (workspaces.monthly_budget_usd is null or workspaces.monthly_budget_usd > (select coalesce(sum(w.cost_usd), 0) from usage_daily w where w.workspace_id = workspaces.id and w.day >= ${from}))`;
}

export interface Budgets {
  workspace: number | null;
  agent: number | null;
}

export async function budgetsOf(db: Db, workspaceId: string, agentId: string): Promise<Budgets> {
  const row = await db
    .selectFrom("agents")
    .innerJoin("workspaces", "workspaces.id", "agents.workspace_id")
    .select(["agents.monthly_budget_usd as agent", "workspaces.monthly_budget_usd as workspace"])
    .where("agents.id", "=", agentId)
    .where("agents.workspace_id", "=", workspaceId)
    .executeTakeFirst();
  return {
    agent: row?.agent === null || row?.agent === undefined ? null : Number(row.agent),
    workspace: row?.workspace === null || row?.workspace === undefined ? null : Number(row.workspace),
  };
}

/** Which budget `extra` more spend (a run in progress) would reach, if any: the agent's first. */
export async function exhaustedBudget(
  db: Db,
  workspaceId: string,
  agentId: string,
  extra = 0,
): Promise<"agent" | "workspace" | undefined> {
  const budgets = await budgetsOf(db, workspaceId, agentId);
  if (budgets.agent !== null && (await monthSpend(db, workspaceId, agentId)) + extra >= budgets.agent) return "agent";
  if (budgets.workspace !== null && (await monthSpend(db, workspaceId)) + extra >= budgets.workspace) {
    return "workspace";
  }
  return undefined;
}

/** After spend was recorded (same transaction): the warning and the exceeded alert, each once per budget and month. */
export async function alertBudgets(trx: Db, workspaceId: string, agentId: string): Promise<void> {
  const budgets = await budgetsOf(trx, workspaceId, agentId);
  const checks: Array<{ scope: string; budget: number; agentId?: string }> = [];
  if (budgets.agent !== null) checks.push({ scope: agentId, budget: budgets.agent, agentId });
  if (budgets.workspace !== null) checks.push({ scope: "workspace", budget: budgets.workspace });
  const month = monthStart().slice(0, 7);
  for (const check of checks) {
    const spend = await monthSpend(trx, workspaceId, check.agentId);
    for (const level of ["warning", "exceeded"] as const) {
      if (spend < (level === "warning" ? WARNING_SHARE : 1) * check.budget) continue;
      const inserted = await trx
        .insertInto("budget_alerts")
        .values({ workspace_id: workspaceId, scope: check.scope, month, level, created_at: now() })
        .onConflict((conflict) => conflict.doNothing())
        .returning("level")
        .executeTakeFirst();
      if (!inserted) continue;
      await appendEvent(trx, {
        workspaceId,
        type: `budget.${level}`,
        entityType: check.agentId ? "agent" : "workspace",
        entityId: check.agentId ?? workspaceId,
        issueId: null,
        actor: null,
        data: { agent_id: check.agentId ?? null, month, budget_usd: check.budget, spend_usd: spend },
      });
      await tellBudget(trx, {
        workspaceId,
        level,
        agentId: check.agentId ?? null,
        budgetUsd: check.budget,
        spendUsd: spend,
        month,
      });
    }
  }
}
