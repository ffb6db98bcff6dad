// Projects: New project (Name), rename, status, archive (a project that is over leaves the pickers) and restore.
import { useState } from "react";
import { api } from "../../api.ts";
import { isArchived, PROJECT_STATUSES, type Project } from "../../api-types.ts";
import { Time } from "../../components/Time.tsx";
import { Empty, ErrorLine, Options } from "../../components.tsx";
import { useWorkspace } from "../../workspace.tsx";
import { NamedItemDialog } from "./NamedItemDialog.tsx";
import { SettingsSection } from "./SettingsSection.tsx";

export function Projects() {
  const ws = useWorkspace();
  const [editing, setEditing] = useState<Project | "new" | null>(null);
  const [error, setError] = useState<unknown>();
  const active = ws.projects.filter((project) => !isArchived(project));
  const archived = ws.projects.filter(isArchived);

  const patch = (project: Project, changes: Partial<Project>) => {
    setError(undefined);
    api.patch(`workspaces/${ws.id}/projects/${project.id}`, changes).then(ws.reload, setError);
  };

  const row = (project: Project) => (
    <li key={project.id}>
      <strong>{project.title}</strong>{" "}
      <span className="muted">
        made <Time iso={project.created_at} />
      </span>
      <span className="row-actions">
        <select
          aria-label={`Status of ${project.title}`}
          value={project.status}
          onChange={(event) => patch(project, { status: event.target.value as Project["status"] })}
        >
          <Options of={PROJECT_STATUSES} />
        </select>
        <button type="button" className="ghost small" onClick={() => setEditing(project)}>
          Rename
        </button>
        {isArchived(project) ? (
          <button type="button" className="ghost small" onClick={() => patch(project, { status: "planned" })}>
            Restore
          </button>
        ) : (
          <button type="button" className="ghost small" onClick={() => patch(project, { status: "completed" })}>
            Archive
          </button>
        )}
      </span>
    </li>
  );

  return (
    <SettingsSection title="Projects" newLabel="New project" onNew={() => setEditing("new")}>
      <ErrorLine error={error} />
      {active.length === 0 ? <Empty>No active projects.</Empty> : <ul className="rows">{active.map(row)}</ul>}
      {archived.length > 0 && (
        <>
          <h3>Archived</h3>
          <p className="muted">Completed or cancelled: kept with their issues, left out of the pickers.</p>
          <ul className="rows">{archived.map(row)}</ul>
        </>
      )}
      {editing && <ProjectDialog project={editing === "new" ? undefined : editing} onClose={() => setEditing(null)} />}
    </SettingsSection>
  );
}

function ProjectDialog({ project, onClose }: { project?: Project | undefined; onClose: () => void }) {
  return (
    <NamedItemDialog
      title={project ? "Rename project" : "New project"}
      collection="projects"
      item={project && { id: project.id, name: project.title }}
      nameField="title"
      nameLimit={500}
      onClose={onClose}
    />
  );
}
