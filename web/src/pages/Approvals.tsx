// The workspace's pending approvals, decided from here; live as runs ask and others decide.
import { api, getAll } from "../api.ts";
import type { Approval, Issue } from "../api-types.ts";
import { ApprovalCard } from "../components/ApprovalCard.tsx";
import { Time } from "../components/Time.tsx";
import { Empty, Loaded } from "../components.tsx";
import { useCoalesced, useWorkspaceEvents } from "../live.ts";
import { Link } from "../router.tsx";
import { useResource } from "../use-resource.ts";
import { useWorkspace } from "../workspace.tsx";

export function Approvals() {
  const ws = useWorkspace();
  const pending = useResource(async () => {
    const list = await getAll<Approval>(`workspaces/${ws.id}/approvals?status=pending`);
    const issues = await Promise.all(
      [...new Set(list.map((each) => each.issue_id))].map((id) =>
        api.get<Issue>(`workspaces/${ws.id}/issues/${id}`).catch(() => undefined),
      ),
    );
    return { list, issues: new Map(issues.filter((each) => each !== undefined).map((each) => [each.id, each])) };
  }, [ws.id]);
  const reload = useCoalesced(pending.reload);
  useWorkspaceEvents(ws.id, (event) => {
    if (event.type.startsWith("approval.") || event.type.startsWith("task.") || event.type === "stream.open") reload();
  });
  return (
    <main className="page">
      <h1>Approvals</h1>
      <Loaded resource={pending} what="the pending approvals">
        {(data) =>
          data.list.length === 0 ? (
            <Empty>Nothing waits for a decision.</Empty>
          ) : (
            <ul className="approvals">
              {data.list.map((approval) => {
                const issue = data.issues.get(approval.issue_id);
                const agent = ws.agents.find((each) => each.id === approval.agent_id);
                return (
                  <li key={approval.id} className="card">
                    <p>
                      <strong>{agent?.name ?? "A deleted agent"}</strong> <span className="tag">agent</span> on{" "}
                      <Link to={`/w/${ws.id}/issues/${approval.issue_id}`}>
                        {issue ? `${issue.identifier} ${issue.title}` : "a deleted issue"}
                      </Link>
                      , asked <Time iso={approval.created_at} />
                    </p>
                    <ApprovalCard workspaceId={ws.id} approval={approval} onDecided={pending.reload} />
                  </li>
                );
              })}
            </ul>
          )
        }
      </Loaded>
    </main>
  );
}
