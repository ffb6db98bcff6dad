// An autopilot row as the API shows it, and what its schedule says about the next fire.
import type { AutopilotRunsTable, AutopilotsTable } from "../db/schema.ts";
import { fromJson, type JsonText, timestampAt } from "../db/values.ts";
import { nextFireTime } from "./cron.ts";
import type { TriggerInput } from "./schemas.ts";

export type StoredTrigger = TriggerInput;

export interface IssueTemplate {
  title: string;
  description: string | null;
  priority: "urgent" | "high" | "medium" | "low" | "none";
  labels: string[];
}

/** A trigger as shown: a webhook's `url` and `token` only in the answer that made the token. */
export type ShownTrigger = StoredTrigger & { url?: string; token?: string };

/** Its row, with `enabled` a boolean and the template and triggers read; the positions it keeps are its own. */
export interface Autopilot
  extends Omit<AutopilotsTable, "enabled" | "issue" | "triggers" | "scheduled_until" | "last_seq"> {
  enabled: boolean;
  issue: IssueTemplate;
  triggers: ShownTrigger[];
}

export const triggersOf = (row: Pick<AutopilotsTable, "triggers">): StoredTrigger[] =>
  fromJson(row.triggers as JsonText<StoredTrigger[]>, []);

export const templateOf = (row: Pick<AutopilotsTable, "issue">): IssueTemplate =>
  fromJson(row.issue as JsonText<IssueTemplate>, { title: "", description: null, priority: "none", labels: [] });

export function toAutopilot(row: AutopilotsTable, tokens: Map<number, { url: string; token: string }> = new Map()) {
  const autopilot: Autopilot = {
    id: row.id,
    workspace_id: row.workspace_id,
    name: row.name,
    description: row.description,
    enabled: Number(row.enabled) === 1,
    agent_id: row.agent_id,
    project_id: row.project_id,
    issue: templateOf(row),
    triggers: triggersOf(row).map((trigger, index) => ({ ...trigger, ...tokens.get(index) })),
    overlap: row.overlap,
    paused_reason: row.paused_reason,
    created_by: row.created_by,
    created_at: row.created_at,
    updated_at: row.updated_at,
    last_fired_at: row.last_fired_at,
    next_fire_at: row.next_fire_at,
  };
  return autopilot;
}

/** The earliest next fire time of its schedules after `after`, while enabled; else null. */
export function nextFireAt(triggers: StoredTrigger[], enabled: boolean, after: Date): string | null {
  if (!enabled) return null;
  let earliest: number | undefined;
  for (const trigger of triggers) {
    if (trigger.kind !== "schedule") continue;
    const next = nextFireTime(trigger, after)?.getTime();
    if (next !== undefined && (earliest === undefined || next < earliest)) earliest = next;
  }
  return earliest === undefined ? null : timestampAt(earliest);
}

/** A stored timestamp (UTC, no zone suffix) as a Date. */
export const dateOf = (timestamp: string): Date => new Date(`${timestamp.slice(0, 23)}Z`);

export interface AutopilotRun {
  id: string;
  autopilot_id: string;
  trigger_kind: AutopilotRunsTable["trigger_kind"];
  status: AutopilotRunsTable["status"];
  reason: string | null;
  issue_id: string | null;
  created_at: string;
}

export const toRun = (row: AutopilotRunsTable): AutopilotRun => ({
  id: row.id,
  autopilot_id: row.autopilot_id,
  trigger_kind: row.trigger_kind,
  status: row.status,
  reason: row.reason,
  issue_id: row.issue_id,
  created_at: row.created_at,
});
