// One agent: its status, a chat over /agui, its tasks, and its settings.
import { useState } from "react";
import { api } from "../api.ts";
import type { Issue, Task } from "../api-types.ts";
import { AgentChat } from "../components/AgentChat.tsx";
import { AgentForm } from "../components/AgentForm.tsx";
import { ErrorLine, Loading } from "../components.tsx";
import { useCoalesced, useWorkspaceEvents } from "../live.ts";
import { Link, navigate } from "../router.tsx";
import { useResource } from "../use-resource.ts";
import { useWorkspace } from "../workspace.tsx";

export function AgentPage({ agentId }: { agentId: string }) {
  const ws = useWorkspace();
  const agent = ws.agents.find((each) => each.id === agentId);
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState<unknown>();
  const tasks = useResource(async () => {
    const list = await api.get<Task[]>(`workspaces/${ws.id}/tasks?agent_id=${agentId}&limit=50`);
    const issues = await Promise.all(
      [...new Set(list.map((task) => task.issue_id))].map((id) =>
        api.get<Issue>(`workspaces/${ws.id}/issues/${id}`).catch(() => undefined),
      ),
    );
    return { list, issues: new Map(issues.filter((each) => each !== undefined).map((each) => [each.id, each])) };
  }, [ws.id, agentId]);
  const reload = useCoalesced(tasks.reload);
  useWorkspaceEvents(ws.id, (event) => {
    if (event.type.startsWith("task.") || event.type === "stream.open") reload();
  });

  if (!agent)
    return (
      <main className="page">
        <Loading />
      </main>
    );
  const remove = async () => {
    if (!window.confirm(`Delete the agent ${agent.name}?`)) return;
    try {
      await api.delete(`workspaces/${ws.id}/agents/${agent.id}`);
      navigate(`/w/${ws.id}/agents`);
    } catch (failure) {
      setError(failure);
    }
  };
  return (
    <main className="page agent-page">
      <div className="toolbar">
        <h1>{agent.name}</h1>
        <span className={`status a-${agent.status}`}>{agent.status}</span>
        <span className="muted">{agent.model ?? "default model"}</span>
        <button type="button" onClick={() => setEditing(!editing)}>
          {editing ? "Close settings" : "Edit agent"}
        </button>
        <button type="button" className="danger" onClick={remove}>
          Delete agent
        </button>
      </div>
      <ErrorLine error={error} />
      {editing && (
        <AgentForm workspaceId={ws.id} agent={agent} submitLabel="Save agent" onSaved={() => setEditing(false)} />
      )}
      <div className="split">
        <AgentChat agentId={agent.id} agentName={agent.name} />
        <section aria-labelledby="agent-tasks">
          <h2 id="agent-tasks">Tasks</h2>
          {tasks.data?.list.length === 0 && <p className="muted">No tasks yet.</p>}
          <ul className="task-list">
            {(tasks.data?.list ?? []).map((task) => {
              const issue = tasks.data?.issues.get(task.issue_id);
              return (
                <li key={task.id}>
                  <span className={`status s-${task.status}`}>{task.status.replace("_", " ")}</span>{" "}
                  <Link to={`/w/${ws.id}/issues/${task.issue_id}`}>
                    {issue ? `${issue.identifier} ${issue.title}` : "issue"}
                  </Link>{" "}
                  <span className="muted">{task.trigger}</span>
                </li>
              );
            })}
          </ul>
        </section>
      </div>
    </main>
  );
}
