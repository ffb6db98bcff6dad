// The workspace's agents with their live status, and New agent.
import { useState } from "react";
import { AgentForm } from "../components/AgentForm.tsx";
import { AgentStatus } from "../components/AgentStatus.tsx";
import { Dialog, Empty } from "../components.tsx";
import { Link, navigate } from "../router.tsx";
import { useWorkspace } from "../workspace.tsx";

export function Agents() {
  const ws = useWorkspace();
  const [creating, setCreating] = useState(false);
  return (
    <main className="page">
      <div className="toolbar">
        <h1>Agents</h1>
        <button type="button" className="primary" onClick={() => setCreating(true)}>
          New agent
        </button>
      </div>
      {!ws.loaded ? null : ws.agents.length === 0 ? (
        <Empty>No agents yet. An agent works the issues assigned to it.</Empty>
      ) : (
        <ul className="agent-list">
          {ws.agents.map((agent) => (
            <li key={agent.id}>
              <Link to={`/w/${ws.id}/agents/${agent.id}`}>{agent.name}</Link> <AgentStatus status={agent.status} />{" "}
              <span className="muted">{agent.model ?? "default model"}</span>
            </li>
          ))}
        </ul>
      )}
      {creating && (
        <Dialog title="New agent" onClose={() => setCreating(false)}>
          <AgentForm
            workspaceId={ws.id}
            submitLabel="Create agent"
            onSaved={(agent) => {
              setCreating(false);
              ws.reload();
              navigate(`/w/${ws.id}/agents/${agent.id}`);
            }}
          />
        </Dialog>
      )}
    </main>
  );
}
