// The board's search, filters (assignee, label, priority, project), view switch and New issue.
import type { RefObject } from "react";
import { isArchived, PRIORITIES } from "../api-types.ts";
import { Options } from "../components.tsx";
import type { WorkspaceData } from "../workspace.tsx";
import { type Filters, isUnfiltered, type View } from "./filters.ts";

export function Toolbar(props: {
  ws: WorkspaceData;
  filters: Filters;
  view: View;
  search: RefObject<HTMLInputElement | null>;
  onFilters: (filters: Filters, view: View) => void;
  onNewIssue: () => void;
}) {
  const { ws, filters, view } = props;
  const set = (name: keyof Filters, value: string) => props.onFilters({ ...filters, [name]: value }, view);
  const projects = ws.projects.filter((project) => !isArchived(project) || project.id === filters.project);
  return (
    <div className="toolbar">
      <h1>Board</h1>
      <input
        ref={props.search}
        type="search"
        aria-label="Search"
        placeholder="Search  /"
        value={filters.q}
        onChange={(event) => set("q", event.target.value)}
      />
      <select
        aria-label="Filter by assignee"
        value={filters.assignee}
        onChange={(e) => set("assignee", e.target.value)}
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
      <select aria-label="Filter by label" value={filters.label} onChange={(e) => set("label", e.target.value)}>
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
        onChange={(e) => set("priority", e.target.value)}
      >
        <option value="">Any priority</option>
        <Options of={PRIORITIES} />
      </select>
      <select aria-label="Filter by project" value={filters.project} onChange={(e) => set("project", e.target.value)}>
        <option value="">Any project</option>
        {projects.map((project) => (
          <option key={project.id} value={project.id}>
            {project.title}
          </option>
        ))}
      </select>
      {!isUnfiltered(filters) && (
        <button
          type="button"
          className="ghost small"
          onClick={() => props.onFilters({ q: "", assignee: "", label: "", priority: "", project: "" }, view)}
        >
          Clear filters
        </button>
      )}
      <fieldset className="segmented">
        <legend className="visually-hidden">View</legend>
        <button type="button" aria-pressed={view === "board"} onClick={() => props.onFilters(filters, "board")}>
          Board view
        </button>
        <button type="button" aria-pressed={view === "list"} onClick={() => props.onFilters(filters, "list")}>
          List view
        </button>
      </fieldset>
      <button type="button" className="primary" onClick={props.onNewIssue} aria-keyshortcuts="c">
        New issue
      </button>
    </div>
  );
}
