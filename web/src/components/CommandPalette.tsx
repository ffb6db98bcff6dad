// Ctrl+K / Cmd+K: a dialog to jump to a page, an agent or an issue (found by the API's search as you type). Arrows
// choose, Enter goes, Esc closes.
import { type KeyboardEvent, useEffect, useId, useState } from "react";
import { api } from "../api.ts";
import type { Issue } from "../api-types.ts";
import { Dialog } from "../components.tsx";
import { navigate } from "../router.tsx";
import { useWorkspace } from "../workspace.tsx";

interface Destination {
  key: string;
  text: string;
  kind: string;
  to: string;
}

export function CommandPalette({ onClose }: { onClose: () => void }) {
  const ws = useWorkspace();
  const listId = useId();
  const [text, setText] = useState("");
  const [issues, setIssues] = useState<Issue[]>([]);
  const [active, setActive] = useState(0);
  const needle = text.trim().toLowerCase();

  useEffect(() => {
    if (!needle) {
      setIssues([]);
      return;
    }
    let current = true;
    const timer = setTimeout(() => {
      api
        .get<Issue[]>(`workspaces/${ws.id}/issues/?limit=8&q=${encodeURIComponent(needle)}`)
        .then((found) => current && setIssues(found))
        .catch(() => current && setIssues([]));
    }, 120);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [needle, ws.id]);

  const base = `/w/${ws.id}`;
  const pages: Destination[] = [
    ["Inbox", "inbox"],
    ["Board", "board"],
    ["Agents", "agents"],
    ["Runtimes", "runtimes"],
    ["Autopilots", "autopilots"],
    ["Approvals", "approvals"],
    ["Calls", "calls"],
    ["Settings", "settings"],
    ["Settings: Members", "settings/members"],
    ["Settings: API keys", "settings/api-keys"],
    ["Settings: Webhooks", "settings/webhooks"],
    ["Settings: Projects", "settings/projects"],
    ["Settings: Labels", "settings/labels"],
    ["Settings: Usage", "settings/usage"],
  ].map(([name, path]) => ({ key: `page-${path}`, text: name!, kind: "Page", to: `${base}/${path}` }));
  const agents: Destination[] = ws.agents.map((agent) => ({
    key: `agent-${agent.id}`,
    text: agent.name,
    kind: "Agent",
    to: `${base}/agents/${agent.id}`,
  }));
  const found: Destination[] = issues.map((issue) => ({
    key: `issue-${issue.id}`,
    text: `${issue.identifier} ${issue.title}`,
    kind: "Issue",
    to: `${base}/issues/${issue.id}`,
  }));
  const matches = (each: Destination) => each.text.toLowerCase().includes(needle);
  const options = [...found, ...pages.filter(matches), ...agents.filter(matches)];
  const chosen = Math.min(active, options.length - 1);

  const go = (destination: Destination | undefined) => {
    if (!destination) return;
    onClose();
    navigate(destination.to);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === "ArrowDown") setActive((chosen + 1) % Math.max(options.length, 1));
    else if (event.key === "ArrowUp") setActive((chosen - 1 + options.length) % Math.max(options.length, 1));
    else if (event.key === "Enter") go(options[chosen]);
    else return;
    event.preventDefault();
  };

  return (
    <Dialog title="Command palette" onClose={onClose} className="palette">
      <input
        type="text"
        role="combobox"
        aria-label="Go to"
        aria-expanded={options.length > 0}
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={options[chosen] ? `${listId}-${options[chosen].key}` : undefined}
        placeholder="Type an issue, a page or an agent…"
        value={text}
        onChange={(event) => {
          setText(event.target.value);
          setActive(0);
        }}
        onKeyDown={onKeyDown}
        autoFocus
      />
      <div id={listId} role="listbox" aria-label="Destinations" className="palette-options">
        {options.map((option, index) => (
          // biome-ignore lint/a11y/useKeyWithClickEvents: the combobox above takes the keys (arrows, Enter)
          <div
            key={option.key}
            id={`${listId}-${option.key}`}
            role="option"
            tabIndex={-1}
            aria-selected={index === chosen}
            onClick={() => go(option)}
            onMouseMove={() => setActive(index)}
          >
            <span className="tag">{option.kind}</span> {option.text}
          </div>
        ))}
      </div>
      {needle && options.length === 0 && <p className="muted">Nothing matches “{text.trim()}”.</p>}
    </Dialog>
  );
}
