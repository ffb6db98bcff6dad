// What every page of a workspace shares: its members, agents, labels and projects, kept fresh by the event stream.
import { createContext, type ReactNode, useContext } from "react";
import { getAll } from "./api.ts";
import type { Agent, Label, Member, Project } from "./api-types.ts";
import { useCoalesced, useWorkspaceEvents } from "./live.ts";
import { useResource } from "./use-resource.ts";

export interface WorkspaceData {
  id: string;
  members: Member[];
  agents: Agent[];
  labels: Label[];
  projects: Project[];
}

const Context = createContext<WorkspaceData | null>(null);

export function WorkspaceProvider({ id, children }: { id: string; children: ReactNode }) {
  const shared = useResource(async () => {
    const [members, agents, labels, projects] = await Promise.all([
      getAll<Member>(`workspaces/${id}/members`),
      getAll<Agent>(`workspaces/${id}/agents/`),
      getAll<Label>(`workspaces/${id}/labels`),
      getAll<Project>(`workspaces/${id}/projects/`),
    ]);
    return { id, members, agents, labels, projects };
  }, [id]);
  const reload = useCoalesced(shared.reload);
  useWorkspaceEvents(id, (event) => {
    if (event.type === "stream.open" || /^(member|agent|label|project|task)\./.test(event.type)) reload();
  });
  const data = shared.data ?? { id, members: [], agents: [], labels: [], projects: [] };
  return <Context.Provider value={data}>{children}</Context.Provider>;
}

export function useWorkspace(): WorkspaceData {
  const data = useContext(Context);
  if (!data) throw new Error("useWorkspace outside a workspace");
  return data;
}

/** "Ada" for a member, "🤖 Reviewer (agent)" style for an agent: who an assignee or author is, in words. */
export function actorName(data: WorkspaceData, type: string | null, id: string | null): string {
  if (!id) return "Unassigned";
  if (type === "agent") return data.agents.find((agent) => agent.id === id)?.name ?? "Unknown agent";
  const member = data.members.find((each) => each.user_id === id);
  return member?.user.name ?? "Unknown member";
}

/** Combobox options for an assignee: "member:<user id>" or "agent:<agent id>". */
export function AssigneeOptions({ data }: { data: WorkspaceData }) {
  return (
    <>
      <option value="">Unassigned</option>
      <optgroup label="Members">
        {data.members.map((member) => (
          <option key={member.user_id} value={`member:${member.user_id}`}>
            {member.user.name}
          </option>
        ))}
      </optgroup>
      <optgroup label="Agents">
        {data.agents.map((agent) => (
          <option key={agent.id} value={`agent:${agent.id}`}>
            {agent.name} (agent)
          </option>
        ))}
      </optgroup>
    </>
  );
}

export function assigneeFields(value: string): { assignee_type: string | null; assignee_id: string | null } {
  if (!value) return { assignee_type: null, assignee_id: null };
  const [type, id] = value.split(":");
  return { assignee_type: type!, assignee_id: id! };
}
