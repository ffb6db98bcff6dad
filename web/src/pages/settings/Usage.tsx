// Usage: this month's cost by agent and by day (a table each, and a bar chart of the days), and the workspace's
// monthly budget, which admins set here. Kept current as runs end and budgets change.
import { api, getAll } from "../../api.ts";
import type { UsageRow, Workspace } from "../../api-types.ts";
import { DateOnly } from "../../components/Time.tsx";
import { Empty, Loaded, Table } from "../../components.tsx";
import { useCoalesced, useWorkspaceEvents } from "../../live.ts";
import { BudgetForm } from "../../usage/BudgetForm.tsx";
import { CostByDay, daysOfMonth } from "../../usage/CostByDay.tsx";
import { budgetShare, tokens, usd } from "../../usage/money.ts";
import { currentMonth, usagePath } from "../../usage/month.ts";
import { useResource, useSession } from "../../use-resource.ts";
import { isAdmin, useWorkspace } from "../../workspace.tsx";
import { SettingsSection } from "./SettingsSection.tsx";

/** Events after which this month's figures or the budget may differ. */
const CHANGES = /^(run\.finished|task\.(succeeded|failed|cancelled|waiting_approval)|budget\.|workspace\.updated)/;

export function Usage() {
  const ws = useWorkspace();
  const session = useSession();
  const month = currentMonth();
  const usage = useResource(async () => {
    const [workspace, byAgent, byDay] = await Promise.all([
      api.get<Workspace>(`workspaces/${ws.id}`),
      getAll<UsageRow>(usagePath(ws.id, month, "agent")),
      getAll<UsageRow>(usagePath(ws.id, month, "day")),
    ]);
    return { workspace, byAgent, byDay };
  }, [ws.id, month.from]);
  const reload = useCoalesced(usage.reload, 200);
  useWorkspaceEvents(ws.id, (event) => {
    if (event.type === "stream.open" || CHANGES.test(event.type)) reload();
  });
  const admin = isAdmin(ws, session?.user.id);

  return (
    <SettingsSection title="Usage">
      <Loaded resource={usage} what="the usage">
        {({ workspace, byAgent, byDay }) => {
          const spent = byAgent.reduce((sum, row) => sum + row.cost_usd, 0);
          const runs = byAgent.reduce((sum, row) => sum + row.runs, 0);
          const budget = workspace.monthly_budget_usd;
          return (
            <>
              <p className="usage-summary">
                {month.title}: <strong>{usd(spent)}</strong> over {runs} {runs === 1 ? "run" : "runs"}
                {budget === null ? ", no monthly budget." : `, ${budgetShare(spent, budget, "the")}.`}
                {budget !== null && spent >= budget && (
                  <strong className="error"> The budget is spent: no new run starts until it is raised.</strong>
                )}
              </p>
              {admin ? (
                <BudgetForm
                  budget={budget}
                  save={async (amount) => {
                    await api.patch(`workspaces/${ws.id}`, { monthly_budget_usd: amount });
                    usage.reload();
                  }}
                />
              ) : (
                <p className="muted">Admins set the workspace's monthly budget.</p>
              )}
              <h3>Cost by day</h3>
              <CostByDay days={daysOfMonth(month.start)} rows={byDay} />
              <h3>By agent</h3>
              {byAgent.length === 0 ? (
                <Empty>No runs this month.</Empty>
              ) : (
                <Table columns={["Agent", "Runs", "Input tokens", "Output tokens", "Cost"]} label="Usage by agent">
                  {byAgent.map((row) => (
                    <tr key={row.key}>
                      <td>{row.name ?? "A deleted agent"}</td>
                      <UsageCells row={row} />
                    </tr>
                  ))}
                </Table>
              )}
              <h3>By day</h3>
              {byDay.length === 0 ? (
                <Empty>No runs this month.</Empty>
              ) : (
                <Table columns={["Day", "Runs", "Input tokens", "Output tokens", "Cost"]} label="Usage by day">
                  {byDay.map((row) => (
                    <tr key={row.key}>
                      <td>
                        <DateOnly day={row.key} />
                      </td>
                      <UsageCells row={row} />
                    </tr>
                  ))}
                </Table>
              )}
            </>
          );
        }}
      </Loaded>
    </SettingsSection>
  );
}

function UsageCells({ row }: { row: UsageRow }) {
  return (
    <>
      <td className="number">{tokens(row.runs)}</td>
      <td className="number">{tokens(row.input_tokens + row.cache_read_tokens + row.cache_write_tokens)}</td>
      <td className="number">{tokens(row.output_tokens)}</td>
      <td className="number">{usd(row.cost_usd)}</td>
    </>
  );
}
