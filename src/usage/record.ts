// Writing usage: a run's tokens and cost are added to the run and to the day's rollup (usage_daily) in the caller's
// transaction, so reports and budget checks never disagree with the runs.
import type { Updateable } from "kysely";
import type { Db } from "../db/index.ts";
import type { RunsTable } from "../db/schema.ts";
import { alertBudgets } from "./budgets.ts";
import type { TokenCounts } from "./prices.ts";

/** `YYYY-MM-DD` of a stored timestamp (UTC). */
export const dayOf = (timestamp: string): string => timestamp.slice(0, 10);

type RollupKey = { workspace_id: string; day: string; agent_id: string; model: string };

/** Adds to one rollup row, creating it at zero first. */
async function addToRollup(trx: Db, key: RollupKey, runs: number, counts: TokenCounts, costUsd: number) {
  await trx
    .insertInto("usage_daily")
    .values({
      ...key,
      runs,
      input_tokens: counts.inputTokens,
      output_tokens: counts.outputTokens,
      cache_read_tokens: counts.cacheReadTokens,
      cache_write_tokens: counts.cacheWriteTokens,
      cost_usd: costUsd,
    })
    .onConflict((conflict) =>
      conflict.columns(["workspace_id", "day", "agent_id", "model"]).doUpdateSet((eb) => ({
        runs: eb("usage_daily.runs", "+", eb.ref("excluded.runs")),
        input_tokens: eb("usage_daily.input_tokens", "+", eb.ref("excluded.input_tokens")),
        output_tokens: eb("usage_daily.output_tokens", "+", eb.ref("excluded.output_tokens")),
        cache_read_tokens: eb("usage_daily.cache_read_tokens", "+", eb.ref("excluded.cache_read_tokens")),
        cache_write_tokens: eb("usage_daily.cache_write_tokens", "+", eb.ref("excluded.cache_write_tokens")),
        cost_usd: eb("usage_daily.cost_usd", "+", eb.ref("excluded.cost_usd")),
      })),
    )
    .execute();
}

/** A new run counts in its day's rollup from its start (with no tokens yet). */
export async function countNewRun(
  trx: Db,
  run: { workspaceId: string; agentId: string; model: string; startedAt: string },
): Promise<void> {
  const key = { workspace_id: run.workspaceId, day: dayOf(run.startedAt), agent_id: run.agentId, model: run.model };
  await addToRollup(trx, key, 1, { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }, 0);
}

/**
 * Adds what a part of a run used (one claim's worth: a run resumed after approval adds again) to the run and its
 * day's rollup. `costUsd` null: no price is known, the run's cost stays as it is (null if never priced). `also`: more
 * of the run's columns, set in the same statement (its end).
 */
export async function addRunUsage(
  trx: Db,
  runId: string,
  counts: TokenCounts,
  costUsd: number | null,
  also: Updateable<RunsTable> = {},
): Promise<void> {
  const run = await trx
    .updateTable("runs")
    .set((eb) => ({
      ...also,
      input_tokens: eb("input_tokens", "+", counts.inputTokens),
      output_tokens: eb("output_tokens", "+", counts.outputTokens),
      cache_read_tokens: eb("cache_read_tokens", "+", counts.cacheReadTokens),
      cache_write_tokens: eb("cache_write_tokens", "+", counts.cacheWriteTokens),
      ...(costUsd !== null && { cost_usd: eb(eb.fn.coalesce("cost_usd", eb.val(0)), "+", costUsd) }),
    }))
    .where("id", "=", runId)
    .returning(["workspace_id", "agent_id", "model", "started_at"])
    .executeTakeFirst();
  if (!run) return;
  const key = { workspace_id: run.workspace_id, day: dayOf(run.started_at), agent_id: run.agent_id, model: run.model };
  await addToRollup(trx, key, 0, counts, costUsd ?? 0);
  if (costUsd !== null && costUsd > 0) await alertBudgets(trx, run.workspace_id, run.agent_id);
}
