// The board: a column per status, cards dragged between them (PATCH status, shown at once), filters, search, a
// list view of the same issues, and the New issue dialog (`c`); `/` focuses search.
import { memo, useEffect, useMemo, useRef, useState } from "react";
import { api, getAll, query } from "../api.ts";
import { type Issue, type IssueStatus, PRIORITIES, STATUSES } from "../api-types.ts";
import { ErrorLine, Loading } from "../components.tsx";
import { useCoalesced, useWorkspaceEvents } from "../live.ts";
import { Link } from "../router.tsx";
import { useResource } from "../use-resource.ts";
import { actorName, useWorkspace, type WorkspaceData } from "../workspace.tsx";
import { NewIssueDialog } from "./NewIssueDialog.tsx";

interface Filters {
  assignee: string;
  label: string;
  priority: string;
  project: string;
  q: string;
}

const NO_FILTERS: Filters = { assignee: "", label: "", priority: "", project: "", q: "" };

/** Is the key press meant for a text field rather than a shortcut? */
function typing(target: EventTarget | null): boolean {
  const element = target as HTMLElement | null;
  return Boolean(element?.closest?.("input, textarea, select, [contenteditable=true], dialog"));
}

export function Board() {
  const ws = useWorkspace();
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [view, setView] = useState<"board" | "list">("board");
  const [creating, setCreating] = useState(false);
  const [moveError, setMoveError] = useState<unknown>();
  const search = useRef<HTMLInputElement>(null);

  const issues = useResource(async () => {
    const [type, id] = filters.assignee.split(":");
    const params = query({
      q: filters.q.trim() || undefined,
      priority: filters.priority || undefined,
      project_id: filters.project || undefined,
      label_id: filters.label || undefined,
      assignee_type: type || undefined,
      assignee_id: id || undefined,
    });
    return getAll<Issue>(`workspaces/${ws.id}/issues/${params}`);
  }, [ws.id, filters]);

  // The list has no labels: one request per label says which issues carry it.
  const labelLinks = useResource(async () => {
    const links = new Map<string, string[]>();
    await Promise.all(
      ws.labels.map(async (label) => {
        const tagged = await getAll<Issue>(`workspaces/${ws.id}/issues/?label_id=${label.id}`);
        for (const issue of tagged) links.set(issue.id, [...(links.get(issue.id) ?? []), label.id]);
      }),
    );
    return links;
  }, [ws.id, ws.labels]);

  const reloadIssues = useCoalesced(() => issues.reload(), 50);
  const reloadLabels = useCoalesced(() => labelLinks.reload(), 50);
  const unfiltered = Object.values(filters).every((value) => value === "");
  /** Without filters one changed issue is fetched and patched in; with filters the list is asked again. */
  const applyIssueEvent = async (issueId: string, deleted: boolean) => {
    if (deleted) return issues.set((list) => list.filter((issue) => issue.id !== issueId));
    try {
      const fresh = await api.get<Issue>(`workspaces/${ws.id}/issues/${issueId}`);
      issues.set((list) =>
        list.some((issue) => issue.id === issueId)
          ? list.map((issue) => (issue.id === issueId ? fresh : issue))
          : [...list, fresh],
      );
    } catch {
      reloadIssues();
    }
  };
  useWorkspaceEvents(ws.id, (event) => {
    if (event.type.startsWith("issue.") && unfiltered && event.entity_id && issues.data)
      void applyIssueEvent(event.entity_id, event.type === "issue.deleted");
    else if (event.type === "stream.open" || event.type.startsWith("issue.")) reloadIssues();
    if (event.type === "stream.open" || event.type.startsWith("label.")) reloadLabels();
  });

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.metaKey || event.ctrlKey || event.altKey || typing(event.target)) return;
      if (event.key === "c") {
        event.preventDefault();
        setCreating(true);
      } else if (event.key === "/") {
        event.preventDefault();
        search.current?.focus();
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);

  const move = async (issueId: string, status: IssueStatus) => {
    const before = issues.data?.find((issue) => issue.id === issueId);
    if (!before || before.status === status) return;
    setMoveError(undefined);
    issues.set((list) => list.map((issue) => (issue.id === issueId ? { ...issue, status } : issue)));
    try {
      await api.patch(`workspaces/${ws.id}/issues/${issueId}`, { status });
    } catch (failure) {
      setMoveError(failure);
      issues.reload();
    }
  };

  const setFilter = (name: keyof Filters, value: string) => setFilters((current) => ({ ...current, [name]: value }));

  return (
    <main className="page board-page">
      <div className="toolbar">
        <h1>Board</h1>
        <input
          ref={search}
          type="search"
          aria-label="Search"
          placeholder="Search  /"
          value={filters.q}
          onChange={(event) => setFilter("q", event.target.value)}
        />
        <select
          aria-label="Filter by assignee"
          value={filters.assignee}
          onChange={(e) => setFilter("assignee", e.target.value)}
        >
          <option value="">Any assignee</option>
          {ws.members.map((member) => (
            <option key={member.user_id} value={`member:${member.user_id}`}>
              {member.user.name}
            </option>
          ))}
          {ws.agents.map((agent) => (
            <option key={agent.id} value={`agent:${agent.id}`}>
              {agent.name} (agent)
            </option>
          ))}
        </select>
        <select aria-label="Filter by label" value={filters.label} onChange={(e) => setFilter("label", e.target.value)}>
          <option value="">Any label</option>
          {ws.labels.map((label) => (
            <option key={label.id} value={label.id}>
              {label.name}
            </option>
          ))}
        </select>
        <select
          aria-label="Filter by priority"
          value={filters.priority}
          onChange={(e) => setFilter("priority", e.target.value)}
        >
          <option value="">Any priority</option>
          {PRIORITIES.map(([priority, title]) => (
            <option key={priority} value={priority}>
              {title}
            </option>
          ))}
        </select>
        <select
          aria-label="Filter by project"
          value={filters.project}
          onChange={(e) => setFilter("project", e.target.value)}
        >
          <option value="">Any project</option>
          {ws.projects.map((project) => (
            <option key={project.id} value={project.id}>
              {project.title}
            </option>
          ))}
        </select>
        <fieldset className="segmented">
          <legend className="visually-hidden">View</legend>
          <button type="button" aria-pressed={view === "board"} onClick={() => setView("board")}>
            Board view
          </button>
          <button type="button" aria-pressed={view === "list"} onClick={() => setView("list")}>
            List view
          </button>
        </fieldset>
        <button type="button" className="primary" onClick={() => setCreating(true)} aria-keyshortcuts="c">
          New issue
        </button>
      </div>
      <ErrorLine error={moveError} />
      <ErrorLine error={issues.error} />
      {!issues.data ? (
        <Loading />
      ) : view === "board" ? (
        <Columns issues={issues.data} labels={labelLinks.data} ws={ws} onMove={move} />
      ) : (
        <IssueList issues={issues.data} labels={labelLinks.data} ws={ws} />
      )}
      {creating && <NewIssueDialog onClose={() => setCreating(false)} onCreated={() => issues.reload()} />}
    </main>
  );
}

function Columns(props: {
  issues: Issue[];
  labels: Map<string, string[]> | undefined;
  ws: WorkspaceData;
  onMove: (issueId: string, status: IssueStatus) => void;
}) {
  const [over, setOver] = useState<string | null>(null);
  const byStatus = useMemo(() => {
    const groups = new Map<string, Issue[]>(STATUSES.map(([status]) => [status, []]));
    for (const issue of props.issues) groups.get(issue.status)?.push(issue);
    return groups;
  }, [props.issues]);
  return (
    <div className="columns">
      {STATUSES.map(([status, title]) => {
        const cards = byStatus.get(status) ?? [];
        return (
          <section
            key={status}
            className={`column${over === status ? " drop" : ""}`}
            aria-label={title}
            onDragOver={(event) => {
              event.preventDefault();
              event.dataTransfer.dropEffect = "move";
              setOver(status);
            }}
            onDragLeave={() => setOver((current) => (current === status ? null : current))}
            onDrop={(event) => {
              event.preventDefault();
              setOver(null);
              const issueId = event.dataTransfer.getData("application/x-issue-id");
              if (issueId) props.onMove(issueId, status);
            }}
          >
            <h2>
              {title} <span className="count">{cards.length}</span>
            </h2>
            <ul>
              {cards.map((issue) => (
                <li key={issue.id}>
                  <Card issue={issue} labels={props.labels?.get(issue.id) ?? NO_LABELS} ws={props.ws} />
                </li>
              ))}
            </ul>
          </section>
        );
      })}
    </div>
  );
}

const NO_LABELS: string[] = [];

/** Memoised: a change to one issue re-renders one card, not the thousand beside it. */
const Card = memo(function Card({ issue, labels, ws }: { issue: Issue; labels: string[]; ws: WorkspaceData }) {
  return (
    <Link
      to={`/w/${ws.id}/issues/${issue.id}`}
      className="issue-card"
      draggable
      onDragStart={(event) => {
        event.dataTransfer.setData("application/x-issue-id", issue.id);
        event.dataTransfer.effectAllowed = "move";
      }}
    >
      <span className="identifier">{issue.identifier}</span> <span className="title">{issue.title}</span>
      <span className="meta">
        {issue.priority !== "none" && <span className={`priority p-${issue.priority}`}>{issue.priority}</span>}
        {labels.map((labelId) => {
          const label = ws.labels.find((each) => each.id === labelId);
          return label ? (
            <span key={labelId} className="label">
              <span className="dot" style={{ background: label.color }} aria-hidden="true" />
              {label.name}
            </span>
          ) : null;
        })}
        {issue.assignee_id && <Assignee issue={issue} ws={ws} />}
      </span>
    </Link>
  );
});

export function Assignee({ issue, ws }: { issue: Issue; ws: WorkspaceData }) {
  const name = actorName(ws, issue.assignee_type, issue.assignee_id);
  return issue.assignee_type === "agent" ? (
    <span className="assignee agent">
      <span aria-hidden="true">⚙ </span>
      {name} <span className="tag">agent</span>
    </span>
  ) : (
    <span className="assignee">{name}</span>
  );
}

function IssueList({
  issues,
  labels,
  ws,
}: {
  issues: Issue[];
  labels: Map<string, string[]> | undefined;
  ws: WorkspaceData;
}) {
  const statusTitle = new Map<string, string>(STATUSES);
  return (
    <table className="issue-table">
      <thead>
        <tr>
          <th scope="col">Issue</th>
          <th scope="col">Status</th>
          <th scope="col">Priority</th>
          <th scope="col">Labels</th>
          <th scope="col">Assignee</th>
        </tr>
      </thead>
      <tbody>
        {issues.map((issue) => (
          <tr key={issue.id}>
            <td>
              <Link to={`/w/${ws.id}/issues/${issue.id}`}>
                <span className="identifier">{issue.identifier}</span> {issue.title}
              </Link>
            </td>
            <td>{statusTitle.get(issue.status)}</td>
            <td>{issue.priority}</td>
            <td>
              {(labels?.get(issue.id) ?? [])
                .map((id) => ws.labels.find((label) => label.id === id)?.name)
                .filter(Boolean)
                .join(", ")}
            </td>
            <td>
              {issue.assignee_id ? <Assignee issue={issue} ws={ws} /> : <span className="muted">Unassigned</span>}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
