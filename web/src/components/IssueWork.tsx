// The agents' tasks on this issue, newest first; each task's current run streams like a chat, with Cancel task
// while it is open and Approve / Deny on a waiting tool call.
import { useState } from "react";
import { api, getAll } from "../api.ts";
import type { Approval, Issue, Task } from "../api-types.ts";
import { ErrorLine } from "../components.tsx";
import { useResource } from "../use-resource.ts";
import { useWorkspace } from "../workspace.tsx";
import { ApprovalCard } from "./ApprovalCard.tsx";
import { RunView } from "./RunView.tsx";

const OPEN = new Set(["queued", "running", "waiting_approval"]);

export function IssueWork({ issue, revision }: { issue: Issue; revision: number }) {
  const ws = useWorkspace();
  const [error, setError] = useState<unknown>();
  const work = useResource(async () => {
    const [tasks, approvals] = await Promise.all([
      api.get<Task[]>(`workspaces/${ws.id}/issues/${issue.id}/tasks?limit=20`),
      getAll<Approval>(`workspaces/${ws.id}/approvals?status=pending`),
    ]);
    return { tasks, approvals: approvals.filter((approval) => approval.issue_id === issue.id) };
  }, [ws.id, issue.id, revision]);
  if (!work.data || work.data.tasks.length === 0) return null;
  const pending = new Map(work.data.approvals.map((approval) => [approval.id, approval]));

  const cancel = async (task: Task) => {
    setError(undefined);
    try {
      await api.post(`workspaces/${ws.id}/tasks/${task.id}/cancel`);
      work.reload();
    } catch (failure) {
      setError(failure);
    }
  };

  return (
    <section aria-labelledby="work-heading" className="work">
      <h2 id="work-heading">Tasks and runs</h2>
      <ErrorLine error={error} />
      {work.data.tasks.map((task) => {
        const agent = ws.agents.find((each) => each.id === task.agent_id);
        return (
          <article key={task.id} className="task" aria-label={`Task of ${agent?.name ?? "an agent"}`}>
            <header>
              <strong>{agent?.name ?? "Agent"}</strong> <span className="tag">agent</span>{" "}
              <span className={`status s-${task.status}`}>{task.status.replace("_", " ")}</span>{" "}
              <span className="muted">({task.trigger})</span>
              {OPEN.has(task.status) && (
                <button type="button" className="danger small" onClick={() => cancel(task)}>
                  Cancel task
                </button>
              )}
            </header>
            {task.error && <p className="error">{task.error}</p>}
            {task.run_id && (
              <RunView
                workspaceId={ws.id}
                runId={task.run_id}
                renderApproval={(approval, decided) => (
                  <ApprovalCard
                    workspaceId={ws.id}
                    approval={decided ? approval : (pending.get(approval.id) ?? approval)}
                    onDecided={work.reload}
                  />
                )}
              />
            )}
          </article>
        );
      })}
    </section>
  );
}
