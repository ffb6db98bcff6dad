// A runner run's usage as the runner reported it: its own cost (Claude Code's total_cost_usd) when it has one, else
// priced like an in-process run, by the agent's own price or its model's.
import type { Db } from "../db/index.ts";
import { fromJson } from "../db/values.ts";
import { agentPrice, costOf, type PriceTable, type TokenCounts } from "../usage/prices.ts";
import { addRunUsage } from "../usage/record.ts";
import type { HeldAgent } from "./reports.ts";
import type { CompleteInput } from "./schemas.ts";

/** `agent`: the run's agent as read with the runner's claim (its price, its model's). */
export async function addRunnerUsage(
  trx: Db,
  runId: string,
  agent: Omit<HeldAgent, "runtime_select">,
  usage: CompleteInput["usage"],
  prices: PriceTable,
): Promise<void> {
  const counts: TokenCounts = {
    inputTokens: usage?.input_tokens ?? 0,
    outputTokens: usage?.output_tokens ?? 0,
    cacheReadTokens: usage?.cache_read_tokens ?? 0,
    cacheWriteTokens: usage?.cache_write_tokens ?? 0,
  };
  let cost = usage?.cost_usd ?? null;
  if (cost === null) {
    const price =
      agentPrice(fromJson(agent.runtime_config, null)) ?? (agent.model ? prices.priceOf(agent.model) : undefined);
    if (price) cost = costOf(counts, price);
  }
  // Nothing to add (a run that reported no usage, of an agent without a price): the run and the rollup stay as they are.
  if (cost === null && Object.values(counts).every((count) => count === 0)) return;
  await addRunUsage(trx, runId, counts, cost);
}
