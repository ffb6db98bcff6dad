// The bar at the top: workspace switcher, the pages, the command palette, who is signed in. On a narrow screen the
// pages fold behind a Menu button.
import { useEffect, useState } from "react";
import { setSession } from "./api.ts";
import type { Workspace } from "./api-types.ts";
import { refreshUnread, useUnreadCount } from "./inbox-live.ts";
import { useWorkspaceEvents } from "./live.ts";
import { Link, navigate } from "./router.tsx";

const NAV = [
  ["inbox", "Inbox"],
  ["board", "Board"],
  ["agents", "Agents"],
  ["runtimes", "Runtimes"],
  ["autopilots", "Autopilots"],
  ["skills", "Skills"],
  ["approvals", "Approvals"],
  ["calls", "Calls"],
  ["settings", "Settings"],
] as const;

export function TopBar(props: {
  workspaces: Workspace[];
  current: string;
  path: string;
  userName: string;
  onPalette: () => void;
}) {
  const [menuOpen, setMenuOpen] = useState(false);
  const unread = useUnreadCount();
  // Someone else deciding an approval reads its items for everyone.
  useWorkspaceEvents(props.current, (event) => {
    if (event.type === "approval.decided" || event.type === "stream.open") refreshUnread();
  });
  const section = props.path.split("/")[3] ?? "board";
  // A page change closes the menu.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the path is what changes
  useEffect(() => setMenuOpen(false), [props.path]);
  return (
    <header className="topbar">
      <label className="switcher">
        <span className="visually-hidden">Workspace</span>
        <select
          aria-label="Workspace"
          value={props.current}
          onChange={(event) =>
            navigate(event.target.value === "+" ? "/new-workspace" : `/w/${event.target.value}/board`)
          }
        >
          {props.workspaces.map((each) => (
            <option key={each.id} value={each.id}>
              {each.name}
            </option>
          ))}
          <option value="+">+ New workspace…</option>
        </select>
      </label>
      <button
        type="button"
        className="menu-button"
        aria-expanded={menuOpen}
        aria-controls="main-nav"
        onClick={() => setMenuOpen(!menuOpen)}
      >
        Menu
        <UnreadBadge unread={unread} />
      </button>
      <nav aria-label="Main" id="main-nav" className={menuOpen ? "open" : ""}>
        {NAV.map(([slug, label]) => {
          const here = section === slug || (slug === "board" && section === "issues");
          return (
            <Link
              key={slug}
              to={`/w/${props.current}/${slug}`}
              className={here ? "active" : ""}
              aria-current={section === slug ? "page" : undefined}
              onClick={() => setMenuOpen(false)}
            >
              {label}
              {slug === "inbox" && <UnreadBadge unread={unread} />}
            </Link>
          );
        })}
      </nav>
      <span className="user">
        <button
          type="button"
          className="ghost jump"
          onClick={props.onPalette}
          aria-keyshortcuts="Control+K Meta+K"
          title="Command palette (Ctrl K)"
        >
          Jump to… <kbd>Ctrl K</kbd>
        </button>
        <span className="muted user-name">{props.userName}</span>
        <button type="button" className="ghost" onClick={() => setSession(null)}>
          Sign out
        </button>
      </span>
    </header>
  );
}

/** The unread count of the inbox, when there is something unread. */
function UnreadBadge({ unread }: { unread: number | undefined }) {
  if (unread === undefined || unread === 0) return null;
  return (
    <span className="unread">
      {unread > 999 ? "999+" : unread}
      <span className="visually-hidden"> unread</span>
    </span>
  );
}
