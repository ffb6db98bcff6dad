// Signed in: the workspace switcher, navigation (behind Menu on a phone), the global keys (`?`, Ctrl/Cmd+K) and the
// page the path names; an address that names nothing says "Page not found".
import { useEffect, useState } from "react";
import { getAll } from "./api.ts";
import type { Workspace } from "./api-types.ts";
import { CommandPalette } from "./components/CommandPalette.tsx";
import { ShortcutsDialog } from "./components/ShortcutsDialog.tsx";
import { Loaded, Loading, NotFound } from "./components.tsx";
import { isTyping } from "./keys.ts";
import { CreateWorkspace } from "./pages/CreateWorkspace.tsx";
import { Page } from "./pages/Page.tsx";
import { navigate } from "./router.tsx";
import { TopBar } from "./TopBar.tsx";
import { useResource } from "./use-resource.ts";
import { WorkspaceProvider } from "./workspace.tsx";

const LAST_WORKSPACE = "agent-platform.workspace";

export default function SignedIn({ path, userName }: { path: string; userName: string }) {
  const workspaces = useResource(() => getAll<Workspace>("workspaces/"), []);
  const wsId = /^\/w\/([^/]+)/.exec(path)?.[1];
  const list = workspaces.data;
  const [overlay, setOverlay] = useState<"palette" | "shortcuts" | null>(null);

  useEffect(() => {
    if (!list || list.length === 0) return;
    if (wsId && list.some((each) => each.id === wsId)) localStorage.setItem(LAST_WORKSPACE, wsId);
    if (path !== "/") return;
    const last = localStorage.getItem(LAST_WORKSPACE);
    const target = list.find((each) => each.id === last) ?? list[0]!;
    navigate(`/w/${target.id}/board`, true);
  }, [list, wsId, path]);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "k") {
        event.preventDefault();
        setOverlay("palette");
      } else if (event.key === "?" && !event.ctrlKey && !event.metaKey && !isTyping(event.target)) {
        event.preventDefault();
        setOverlay("shortcuts");
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);

  if (!list)
    return (
      <main className="page">
        <Loaded resource={workspaces} what="your workspaces">
          {() => null}
        </Loaded>
      </main>
    );
  if (list.length === 0 || path === "/new-workspace")
    return <CreateWorkspace first={list.length === 0} onCreated={workspaces.reload} />;
  if (path === "/") return <Loading />;
  const workspace = wsId ? list.find((each) => each.id === wsId) : undefined;
  if (!workspace) return <NotFound home="/" />;

  return (
    <WorkspaceProvider id={workspace.id}>
      <TopBar
        workspaces={list}
        current={workspace.id}
        path={path}
        userName={userName}
        onPalette={() => setOverlay("palette")}
      />
      <Page path={path} />
      {overlay === "palette" && <CommandPalette onClose={() => setOverlay(null)} />}
      {overlay === "shortcuts" && <ShortcutsDialog onClose={() => setOverlay(null)} />}
    </WorkspaceProvider>
  );
}
