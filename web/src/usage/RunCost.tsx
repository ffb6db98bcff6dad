// What a task's runs used: tokens and cost per run ("cost unknown" when no price is known for the model), asked again
// whenever the task moves on (a run's usage is written as its model calls end).
import { api } from "../api.ts";
import type { Run, Task } from "../api-types.ts";
import { LoadFailed } from "../components.tsx";
import { useResource } from "../use-resource.ts";
import { tokens, usd } from "./money.ts";

/** "18 tokens (11 in, 7 out) · $0.0250": cached input read back is named when there is some. */
export function runUsageText(usage: Run["usage"]): string {
  const input = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens;
  const parts = [`${tokens(usage.input_tokens)} in`];
  if (usage.cache_read_tokens > 0) parts.push(`${tokens(usage.cache_read_tokens)} cached`);
  if (usage.cache_write_tokens > 0) parts.push(`${tokens(usage.cache_write_tokens)} cache written`);
  parts.push(`${tokens(usage.output_tokens)} out`);
  const total = input + usage.output_tokens;
  const cost = usage.cost_usd === null ? "cost unknown" : usd(usage.cost_usd);
  return `${tokens(total)} tokens (${parts.join(", ")}) · ${cost}`;
}

export function RunCost({ workspaceId, task }: { workspaceId: string; task: Task }) {
  const runs = useResource(
    () => api.get<Run[]>(`workspaces/${workspaceId}/tasks/${task.id}/runs?limit=50`),
    [workspaceId, task.id, task.status, task.run_id, task.attempt],
  );
  // A run in progress has used nothing yet that is counted: its usage shows once it ends or pauses.
  const shown = (runs.data ?? []).filter(
    (run) => run.status !== "running" || run.usage.input_tokens + run.usage.output_tokens > 0,
  );
  if (runs.error && !runs.data) return <LoadFailed error={runs.error} onRetry={runs.reload} what="the runs' usage" />;
  if (shown.length === 0) return null;
  if (shown.length === 1) return <p className="run-cost muted">Usage: {runUsageText(shown[0]!.usage)}</p>;
  return (
    <ul className="run-cost muted" aria-label="Usage per run">
      {shown.map((run) => (
        <li key={run.id}>
          Run {runs.data!.indexOf(run) + 1}: {runUsageText(run.usage)}
        </li>
      ))}
    </ul>
  );
}
