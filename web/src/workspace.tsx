// What every page of a workspace shares: its members, agents, labels and projects, kept fresh by the event stream.
import { createContext, type ReactNode, useContext, useMemo } from "react";
import { getAll } from "./api.ts";
import type { Agent, Label, Member, Project } from "./api-types.ts";
import { LoadFailed } from "./components.tsx";
import { useCoalesced, useWorkspaceEvents } from "./live.ts";
import { useResource } from "./use-resource.ts";

export interface WorkspaceData {
  id: string;
  members: Member[];
  agents: Agent[];
  labels: Label[];
  projects: Project[];
  /** False until the first answer: names are not known yet. */
  loaded: boolean;
  /** Asks for all of it again at once (after a change here, before its event arrives). */
  reload: () => void;
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
  const data = useMemo<WorkspaceData>(
    () => ({
      ...(shared.data ?? { id, members: [], agents: [], labels: [], projects: [] }),
      loaded: shared.data !== undefined,
      reload: shared.reload,
    }),
    [shared.data, shared.reload, id],
  );
  return (
    <Context.Provider value={data}>
      {shared.error && (
        <div className="page-alert">
          <LoadFailed error={shared.error} onRetry={shared.reload} what="the workspace's members, agents and labels" />
        </div>
      )}
      {children}
    </Context.Provider>
  );
}

export function useWorkspace(): WorkspaceData {
  const data = useContext(Context);
  if (!data) throw new Error("useWorkspace outside a workspace");
  return data;
}

/** "Ada" for a member, "🤖 Reviewer (agent)" style for an agent: who an assignee or author is, in words. */
export function actorName(data: WorkspaceData, type: string | null, id: string | null): string {
  if (type === "system") return "The platform";
  if (!id) return "Unassigned";
  if (!data.loaded) return "…";
  if (type === "agent") return data.agents.find((agent) => agent.id === id)?.name ?? "A deleted agent";
  const member = data.members.find((each) => each.user_id === id);
  return member?.user.name ?? "A former member";
}

/** Whether the signed-in user may do a workspace admin's things here (owners and admins); false until known. */
export function isAdmin(data: WorkspaceData, userId: string | undefined): boolean {
  const role = data.members.find((each) => each.user_id === userId)?.role;
  return role === "owner" || role === "admin";
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
