// An agent's spend this month (from GET usage by agent), its monthly budget (set here by admins), and, when it is
// blocked, which budget stops it.
import { api } from "../api.ts";
import type { Agent, UsageRow } from "../api-types.ts";
import { LoadFailed } from "../components.tsx";
import { useCoalesced, useWorkspaceEvents } from "../live.ts";
import { useResource, useSession } from "../use-resource.ts";
import { isAdmin, useWorkspace } from "../workspace.tsx";
import { BudgetForm } from "./BudgetForm.tsx";
import { AgentBlockedByBudget } from "./BudgetReason.tsx";
import { budgetShare, usd } from "./money.ts";
import { currentMonth, usagePath } from "./month.ts";

const CHANGES = /^(run\.finished|task\.(succeeded|failed|cancelled|waiting_approval)|budget\.)/;

export function AgentCost({ agent }: { agent: Agent }) {
  const ws = useWorkspace();
  const session = useSession();
  const month = currentMonth();
  const usage = useResource(async () => {
    // At most one row per agent; an agent with no runs this month has none.
    const rows = await api.get<UsageRow[]>(`${usagePath(ws.id, month, "agent")}&limit=200`);
    return rows.find((row) => row.key === agent.id) ?? null;
  }, [ws.id, agent.id, month.from]);
  const reload = useCoalesced(usage.reload, 200);
  useWorkspaceEvents(ws.id, (event) => {
    if (event.type === "stream.open" || CHANGES.test(event.type)) reload();
  });
  const spent = usage.data === undefined ? undefined : (usage.data?.cost_usd ?? 0);
  const runs = usage.data?.runs ?? 0;
  const budget = agent.monthly_budget_usd;

  return (
    <section aria-labelledby="agent-cost" className="agent-cost">
      <h2 id="agent-cost">Cost this month</h2>
      {agent.status === "blocked" && <AgentBlockedByBudget workspaceId={ws.id} budget={budget} spent={spent} />}
      {usage.error && <LoadFailed error={usage.error} onRetry={usage.reload} what="the agent's cost" />}
      {spent !== undefined && (
        <p>
          {month.title}: <strong>{usd(spent)}</strong> over {runs} {runs === 1 ? "run" : "runs"}
          {budget === null ? ", no monthly budget of its own." : `, ${budgetShare(spent, budget, "its")}.`}
        </p>
      )}
      {isAdmin(ws, session?.user.id) && (
        <BudgetForm
          budget={budget}
          save={async (amount) => {
            await api.patch(`workspaces/${ws.id}/agents/${agent.id}`, { monthly_budget_usd: amount });
            ws.reload();
          }}
        />
      )}
    </section>
  );
}
