// One agent: its status, a chat over /agui, its tasks (each naming its issue), and its settings.
import { useState } from "react";
import { api } from "../api.ts";
import { type Issue, type RuntimeConfig, type Task, taskStatusTitle } from "../api-types.ts";
import { AgentChat } from "../components/AgentChat.tsx";
import { AgentForm } from "../components/AgentForm.tsx";
import { AgentStatus } from "../components/AgentStatus.tsx";
import { useConfirm } from "../components/ConfirmDialog.tsx";
import { runsOnText } from "../components/RunsOn.tsx";
import { Time } from "../components/Time.tsx";
import { Loaded, Loading, NotFound } from "../components.tsx";
import { useCoalesced, useWorkspaceEvents } from "../live.ts";
import { Link, navigate } from "../router.tsx";
import { AgentCost } from "../usage/AgentCost.tsx";
import { useResource } from "../use-resource.ts";
import { useWorkspace } from "../workspace.tsx";

export function AgentPage({ agentId }: { agentId: string }) {
  const ws = useWorkspace();
  const confirm = useConfirm();
  const agent = ws.agents.find((each) => each.id === agentId);
  const [editing, setEditing] = useState(false);
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
    return ws.loaded ? (
      <NotFound home={`/w/${ws.id}/board`} what="Agent" />
    ) : (
      <main className="page">
        <Loading />
      </main>
    );
  const remove = () =>
    confirm.ask(
      `Delete the agent ${agent.name}?`,
      "Delete agent",
      "Its open tasks are cancelled and the issues assigned to it become unassigned.",
      async () => {
        await api.delete(`workspaces/${ws.id}/agents/${agent.id}`);
        ws.reload();
        navigate(`/w/${ws.id}/agents`);
      },
    );
  return (
    <main className="page agent-page">
      <div className="toolbar">
        <h1>{agent.name}</h1>
        <AgentStatus status={agent.status} />
        <span className="muted">{agent.model ?? "default model"}</span>
        <span className="muted">Runs on: {runsOnText(agent.runtime_config as RuntimeConfig)}</span>
        <button type="button" onClick={() => setEditing(!editing)} aria-expanded={editing}>
          {editing ? "Close settings" : "Edit agent"}
        </button>
        <button type="button" className="danger" onClick={remove}>
          Delete agent
        </button>
      </div>
      {editing && (
        <AgentForm
          workspaceId={ws.id}
          agent={agent}
          submitLabel="Save agent"
          onSaved={() => {
            setEditing(false);
            ws.reload();
          }}
        />
      )}
      <AgentCost agent={agent} />
      <div className="split">
        <AgentChat agentId={agent.id} agentName={agent.name} />
        <section aria-labelledby="agent-tasks">
          <h2 id="agent-tasks">Tasks</h2>
          <Loaded resource={tasks} what="the agent's tasks">
            {(data) =>
              data.list.length === 0 ? (
                <p className="muted">No tasks yet.</p>
              ) : (
                <ul className="task-list">
                  {data.list.map((task) => {
                    const issue = data.issues.get(task.issue_id);
                    return (
                      <li key={task.id}>
                        <span className={`status s-${task.status}`}>{taskStatusTitle(task.status)}</span>{" "}
                        <Link to={`/w/${ws.id}/issues/${task.issue_id}`}>
                          {issue ? `${issue.identifier} ${issue.title}` : "a deleted issue"}
                        </Link>{" "}
                        <Time iso={task.created_at} className="muted" />
                      </li>
                    );
                  })}
                </ul>
              )
            }
          </Loaded>
        </section>
      </div>
      {confirm.dialog}
    </main>
  );
}
