// `GET usage`: the workspace's usage over the runs started in [from, to), grouped by agent, model, day or issue.
// Whole days are read from the daily rollup (a few rows per day); a range that cuts a day, and grouping by issue,
// read the runs through runs_workspace_started_idx.
import { sql } from "kysely";
import type { Db } from "../db/index.ts";
import type { UsageDailyTable } from "../db/schema.ts";
import { timestampAt } from "../db/values.ts";
import { dayOf } from "./record.ts";

export type UsageGroup = "agent" | "model" | "day" | "issue";

/** What a group's runs used: the daily rollup's sums. */
type Sums = Omit<UsageDailyTable, "workspace_id" | "day" | "agent_id" | "model">;

export interface UsageRow extends Sums {
  key: string;
  name?: string;
}

const DAY_MS = 86_400_000;

/** The current calendar month (UTC) as [from, to) epoch milliseconds. */
export function currentMonth(at = new Date()): { from: number; to: number } {
  return {
    from: Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1),
    to: Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1),
  };
}

/** The summed columns, in both the rollup and the runs. */
const SUMMED = ["input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "cost_usd"] as const;
const summed = () => SUMMED.map((column) => sql<number>`sum(${sql.ref(column)})`.as(column));

const toSums = (row: Record<string, unknown>): Sums => ({
  runs: Number(row.runs ?? 0),
  input_tokens: Number(row.input_tokens ?? 0),
  output_tokens: Number(row.output_tokens ?? 0),
  cache_read_tokens: Number(row.cache_read_tokens ?? 0),
  cache_write_tokens: Number(row.cache_write_tokens ?? 0),
  cost_usd: Number(row.cost_usd ?? 0),
});

export async function usageReport(
  db: Db,
  workspaceId: string,
  range: { from: number; to: number },
  group: UsageGroup,
): Promise<UsageRow[]> {
  const wholeDays = range.from % DAY_MS === 0 && range.to % DAY_MS === 0;
  const rows =
    group !== "issue" && wholeDays
      ? await fromRollup(db, workspaceId, range, group)
      : await fromRuns(db, workspaceId, range, group);
  const named = await names(
    db,
    workspaceId,
    group,
    rows.map((row) => row.key),
  );
  return rows
    .map((row) => ({ ...row, ...(named.has(row.key) && { name: named.get(row.key) }) }))
    .sort((a, b) =>
      group === "day" ? a.key.localeCompare(b.key) : b.cost_usd - a.cost_usd || a.key.localeCompare(b.key),
    );
}

async function fromRollup(db: Db, workspaceId: string, range: { from: number; to: number }, group: UsageGroup) {
  const column = group === "agent" ? "agent_id" : group === "model" ? "model" : "day";
  const rows = await db
    .selectFrom("usage_daily")
    .select((eb) => [eb.ref(column).as("key"), eb.fn.sum<number>("runs").as("runs"), ...summed()])
    .where("workspace_id", "=", workspaceId)
    .where("day", ">=", dayOf(timestampAt(range.from)))
    .where("day", "<", dayOf(timestampAt(range.to)))
    .groupBy(column)
    .execute();
  return rows.filter((row) => Number(row.runs) > 0).map((row) => ({ key: String(row.key), ...toSums(row) }));
}

async function fromRuns(db: Db, workspaceId: string, range: { from: number; to: number }, group: UsageGroup) {
  const key =
    group === "agent"
      ? sql<string>`agent_id`
      : group === "model"
        ? sql<string>`model`
        : group === "issue"
          ? sql<string>`issue_id`
          : sql<string>`substr(started_at, 1, 10)`;
  const rows = await db
    .selectFrom("runs")
    .select((eb) => [key.as("key"), eb.fn.countAll<number>().as("runs"), ...summed()])
    .where("workspace_id", "=", workspaceId)
    .where("started_at", ">=", timestampAt(range.from))
    .where("started_at", "<", timestampAt(range.to))
    .groupBy(key)
    .execute();
  return rows.map((row) => ({ key: String(row.key), ...toSums(row) }));
}

/** Agents' names and issues' titles for their keys. */
async function names(db: Db, workspaceId: string, group: UsageGroup, keys: string[]): Promise<Map<string, string>> {
  if (keys.length === 0 || (group !== "agent" && group !== "issue")) return new Map();
  const table = group === "agent" ? "agents" : "issues";
  const rows =
    table === "agents"
      ? await db
          .selectFrom("agents")
          .select(["id", "name as name"])
          .where("workspace_id", "=", workspaceId)
          .where("id", "in", keys)
          .execute()
      : await db
          .selectFrom("issues")
          .select(["id", "title as name"])
          .where("workspace_id", "=", workspaceId)
          .where("id", "in", keys)
          .execute();
  return new Map(rows.map((row) => [row.id, row.name]));
}
