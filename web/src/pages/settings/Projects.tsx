// Projects: New project (Name), rename, status, archive (a project that is over leaves the pickers) and restore.
import { useState } from "react";
import { api } from "../../api.ts";
import { isArchived, PROJECT_STATUSES, type Project } from "../../api-types.ts";
import { Time } from "../../components/Time.tsx";
import { Dialog, Empty, ErrorLine, FormActions, fieldError, formError, InputField } from "../../components.tsx";
import { maxLength, required, text, useForm } from "../../forms.ts";
import { useWorkspace } from "../../workspace.tsx";

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
          {PROJECT_STATUSES.map(([status, title]) => (
            <option key={status} value={status}>
              {title}
            </option>
          ))}
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
    <section aria-labelledby="projects-heading">
      <div className="toolbar">
        <h2 id="projects-heading">Projects</h2>
        <button type="button" className="primary" onClick={() => setEditing("new")}>
          New project
        </button>
      </div>
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
    </section>
  );
}

function ProjectDialog({ project, onClose }: { project?: Project | undefined; onClose: () => void }) {
  const ws = useWorkspace();
  const form = useForm({
    check: (values) => [
      { field: "title", label: "Name", value: text(values, "name"), checks: [required, maxLength(500)] },
    ],
    send: async (values) => {
      const body = { title: text(values, "name") };
      if (project) await api.patch(`workspaces/${ws.id}/projects/${project.id}`, body);
      else await api.post(`workspaces/${ws.id}/projects/`, body);
      ws.reload();
      onClose();
    },
  });
  return (
    <Dialog title={project ? "Rename project" : "New project"} onClose={onClose}>
      <form {...form.props}>
        <InputField
          label="Name"
          error={fieldError(form.error, "title")}
          name="name"
          defaultValue={project?.title}
          autoFocus
        />
        <ErrorLine error={formError(form.error, ["title"])} />
        <FormActions submit={project ? "Save" : "Create"} onCancel={onClose} busy={form.busy} />
      </form>
    </Dialog>
  );
}
