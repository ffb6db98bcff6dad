// Projects: New project (Name), rename, status, archive (a project that is over leaves the pickers) and restore.
import { type FormEvent, useRef, useState } from "react";
import { api } from "../../api.ts";
import { isArchived, PROJECT_STATUSES, type Project } from "../../api-types.ts";
import { Time } from "../../components/Time.tsx";
import { Dialog, Empty, ErrorLine, Field, fieldError, formError } from "../../components.tsx";
import { checkForm, maxLength, required, useFocusInvalid } from "../../forms.ts";
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
  const form = useRef<HTMLFormElement>(null);
  const [error, setError] = useState<unknown>();
  useFocusInvalid(form, error);
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const title = String(new FormData(event.currentTarget).get("name") ?? "");
    const invalid = checkForm([{ field: "title", label: "Name", value: title, checks: [required, maxLength(500)] }]);
    if (invalid) {
      setError(invalid);
      return;
    }
    setBusy(true);
    try {
      if (project) await api.patch(`workspaces/${ws.id}/projects/${project.id}`, { title });
      else await api.post(`workspaces/${ws.id}/projects/`, { title });
      ws.reload();
      onClose();
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  };
  return (
    <Dialog title={project ? "Rename project" : "New project"} onClose={onClose}>
      <form ref={form} onSubmit={submit} noValidate>
        <Field label="Name" error={fieldError(error, "title")}>
          {(id, describedBy, invalid) => (
            <input
              id={id}
              name="name"
              defaultValue={project?.title}
              aria-describedby={describedBy}
              aria-invalid={invalid}
              autoFocus
            />
          )}
        </Field>
        <ErrorLine error={formError(error, ["title"])} />
        <div className="actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={busy}>
            {project ? "Save" : "Create"}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
