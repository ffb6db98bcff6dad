// The agents' tasks on this issue, newest first; each task's current run streams like a chat, with Cancel task
// while it is open, Approve / Deny on a waiting tool call, the answer to a question, and Run again once it has ended.
import { useState } from "react";
import { api, getAll } from "../api.ts";
import { type Approval, type Issue, OPEN_TASK_STATUSES, type Task, taskStatusTitle } from "../api-types.ts";
import { ErrorLine, LoadFailed } from "../components.tsx";
import { Link } from "../router.tsx";
import { WaitingForBudget } from "../usage/BudgetReason.tsx";
import { RunCost } from "../usage/RunCost.tsx";
import { useReloadOn, useResource } from "../use-resource.ts";
import { useWorkspace } from "../workspace.tsx";
import { ApprovalCard } from "./ApprovalCard.tsx";
import { RunView } from "./RunView.tsx";
import { Time } from "./Time.tsx";

const TRIGGERS: Record<Task["trigger"], string> = {
  assigned: "on assignment",
  comment: "on a comment",
  mention: "on a mention",
  manual: "run by hand",
};

export function IssueWork({ issue, revision }: { issue: Issue; revision: number }) {
  const ws = useWorkspace();
  const [error, setError] = useState<unknown>();
  const work = useResource(async () => {
    const [tasks, approvals] = await Promise.all([
      api.get<Task[]>(`workspaces/${ws.id}/issues/${issue.id}/tasks?limit=20`),
      getAll<Approval>(`workspaces/${ws.id}/approvals?status=pending`),
    ]);
    return { tasks, approvals: approvals.filter((approval) => approval.issue_id === issue.id) };
  }, [ws.id, issue.id]);
  useReloadOn(revision, work.reload);
  if (!work.data) return work.error ? <LoadFailed error={work.error} onRetry={work.reload} what="the tasks" /> : null;
  if (work.data.tasks.length === 0) return null;
  const pending = new Map(work.data.approvals.map((approval) => [approval.id, approval]));
  const openAgents = new Set(
    work.data.tasks.filter((task) => OPEN_TASK_STATUSES.includes(task.status)).map((task) => task.agent_id),
  );
  const act = async (path: string, body?: unknown) => {
    setError(undefined);
    try {
      await api.post(path, body);
      work.reload();
    } catch (failure) {
      setError(failure);
    }
  };

  return (
    <section aria-labelledby="work-heading" className="work">
      <h2 id="work-heading">Tasks and runs</h2>
      <ErrorLine error={error} />
      {work.data.tasks.map((task, index) => {
        const agent = ws.agents.find((each) => each.id === task.agent_id);
        const name = agent?.name ?? "A deleted agent";
        const open = OPEN_TASK_STATUSES.includes(task.status);
        // Run again on the newest ended task of each agent without open work here.
        const newestOfAgent = work.data?.tasks.findIndex((each) => each.agent_id === task.agent_id) === index;
        return (
          <article key={task.id} className="task" aria-label={`Task of ${name}`}>
            <header>
              <strong>{name}</strong> <span className="tag">agent</span>{" "}
              <span className={`status s-${task.status}`}>{taskStatusTitle(task.status)}</span>{" "}
              <span className="muted">
                {TRIGGERS[task.trigger]}, <Time iso={task.created_at} />
                {task.finished_at && (
                  <>
                    {" "}
                    · ended <Time iso={task.finished_at} />
                  </>
                )}
              </span>
              {open && (
                <button
                  type="button"
                  className="danger small"
                  onClick={() => act(`workspaces/${ws.id}/tasks/${task.id}/cancel`)}
                >
                  Cancel task
                </button>
              )}
              {!open && newestOfAgent && agent && !openAgents.has(task.agent_id) && (
                <button
                  type="button"
                  className="small"
                  onClick={() => act(`workspaces/${ws.id}/issues/${issue.id}/tasks`, { agent_id: task.agent_id })}
                >
                  Run again
                </button>
              )}
            </header>
            {task.waiting_for === "runtime" && (
              <p className="waiting-runtime">
                Waiting for a runtime: no online runner offers one this agent runs on.{" "}
                <Link to={`/w/${ws.id}/runtimes`}>See runtimes</Link>
              </p>
            )}
            {task.waiting_for === "budget" && <WaitingForBudget workspaceId={ws.id} />}
            {task.error && <p className="error">{task.error}</p>}
            {task.run_id && (
              <RunView
                workspaceId={ws.id}
                runId={task.run_id}
                agentName={name}
                onAnswered={work.reload}
                renderApproval={(approval, decided) => (
                  <ApprovalCard
                    workspaceId={ws.id}
                    approval={decided ? approval : (pending.get(approval.id) ?? approval)}
                    onDecided={work.reload}
                  />
                )}
              />
            )}
            <RunCost workspaceId={ws.id} task={task} />
          </article>
        );
      })}
    </section>
  );
}
