// Signed in: the workspace switcher, navigation and the page the path names.
import { useEffect } from "react";
import { getAll, setSession } from "./api.ts";
import type { Workspace } from "./api-types.ts";
import { Loading } from "./components.tsx";
import { AgentPage } from "./pages/AgentPage.tsx";
import { Agents } from "./pages/Agents.tsx";
import { Approvals } from "./pages/Approvals.tsx";
import { Board } from "./pages/Board.tsx";
import { Calls } from "./pages/Calls.tsx";
import { CreateWorkspace } from "./pages/CreateWorkspace.tsx";
import { IssuePage } from "./pages/IssuePage.tsx";
import { Settings } from "./pages/Settings.tsx";
import { Link, match, navigate } from "./router.tsx";
import { useResource } from "./use-resource.ts";
import { WorkspaceProvider } from "./workspace.tsx";

const LAST_WORKSPACE = "agent-platform.workspace";

export default function SignedIn({ path, userName }: { path: string; userName: string }) {
  const workspaces = useResource(() => getAll<Workspace>("workspaces/"), []);
  const wsId = /^\/w\/([^/]+)/.exec(path)?.[1];
  const list = workspaces.data;

  useEffect(() => {
    if (!list || list.length === 0) return;
    if (wsId && list.some((each) => each.id === wsId)) {
      localStorage.setItem(LAST_WORKSPACE, wsId);
      return;
    }
    if (path === "/new-workspace") return;
    const last = localStorage.getItem(LAST_WORKSPACE);
    const target = list.find((each) => each.id === last) ?? list[0]!;
    navigate(`/w/${target.id}/board`, true);
  }, [list, wsId, path]);

  if (!list) return workspaces.error ? <p className="error">{workspaces.error.message}</p> : <Loading />;
  if (list.length === 0 || path === "/new-workspace")
    return <CreateWorkspace first={list.length === 0} onCreated={workspaces.reload} />;
  if (!wsId || !list.some((each) => each.id === wsId)) return <Loading />;

  const section = path.split("/")[3] ?? "board";
  const nav = [
    ["board", "Board"],
    ["agents", "Agents"],
    ["approvals", "Approvals"],
    ["calls", "Calls"],
    ["settings", "Settings"],
  ] as const;
  return (
    <WorkspaceProvider id={wsId}>
      <header className="topbar">
        <label className="switcher">
          <span className="visually-hidden">Workspace</span>
          <select
            aria-label="Workspace"
            value={wsId}
            onChange={(event) =>
              navigate(event.target.value === "+" ? "/new-workspace" : `/w/${event.target.value}/board`)
            }
          >
            {list.map((each) => (
              <option key={each.id} value={each.id}>
                {each.name}
              </option>
            ))}
            <option value="+">+ New workspace…</option>
          </select>
        </label>
        <nav aria-label="Main">
          {nav.map(([slug, label]) => (
            <Link
              key={slug}
              to={`/w/${wsId}/${slug}`}
              className={section === slug || (slug === "board" && section === "issues") ? "active" : ""}
              aria-current={section === slug ? "page" : undefined}
            >
              {label}
            </Link>
          ))}
        </nav>
        <span className="user">
          <span className="muted">{userName}</span>
          <button type="button" className="ghost" onClick={() => setSession(null)}>
            Sign out
          </button>
        </span>
      </header>
      <Page path={path} />
    </WorkspaceProvider>
  );
}

function Page({ path }: { path: string }) {
  let params = match("/w/:ws/issues/:issue", path);
  if (params) return <IssuePage key={params.issue} issueId={params.issue!} />;
  params = match("/w/:ws/agents/:agent", path);
  if (params) return <AgentPage key={params.agent} agentId={params.agent!} />;
  params = match("/w/:ws/calls/:call", path);
  if (params) return <Calls callId={params.call!} />;
  const section = path.split("/")[3] ?? "board";
  switch (section) {
    case "agents":
      return <Agents />;
    case "approvals":
      return <Approvals />;
    case "calls":
      return <Calls />;
    case "settings":
      return <Settings />;
    default:
      return <Board />;
  }
}
