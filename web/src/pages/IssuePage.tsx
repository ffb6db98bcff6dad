// One issue: its text, fields, relations, comment thread, activity, and the agent's tasks and runs, kept live.
import { type FormEvent, useState } from "react";
import { api } from "../api.ts";
import type { Activity, Issue } from "../api-types.ts";
import { Comments } from "../components/Comments.tsx";
import { IssueFields } from "../components/IssueFields.tsx";
import { IssueRelations } from "../components/IssueRelations.tsx";
import { IssueWork } from "../components/IssueWork.tsx";
import { ErrorLine, Field, fieldError, formError, Loading } from "../components.tsx";
import { useCoalesced, useWorkspaceEvents } from "../live.ts";
import { Markdown } from "../markdown.tsx";
import { navigate } from "../router.tsx";
import { useResource } from "../use-resource.ts";
import { actorName, useWorkspace } from "../workspace.tsx";

export function IssuePage({ issueId }: { issueId: string }) {
  const ws = useWorkspace();
  const base = `workspaces/${ws.id}/issues/${issueId}`;
  const issue = useResource(() => api.get<Issue>(base), [base]);
  const activity = useResource(() => api.get<Activity[]>(`${base}/activity?limit=50`), [base]);
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState<unknown>();
  const [revision, setRevision] = useState(0);

  const reloadIssue = useCoalesced(issue.reload, 50);
  const reloadActivity = useCoalesced(activity.reload, 100);
  const bump = useCoalesced(() => setRevision((value) => value + 1), 50);
  useWorkspaceEvents(ws.id, (event) => {
    if (event.type === "stream.open") {
      reloadIssue();
      reloadActivity();
      bump();
      return;
    }
    if (event.issue_id !== issueId && event.entity_id !== issueId) {
      if (event.type.startsWith("issue.")) bump();
      return;
    }
    if (event.type.startsWith("issue.")) reloadIssue();
    reloadActivity();
    bump();
  });

  const update = async (changes: Partial<Issue>) => {
    setError(undefined);
    issue.set((current) => ({ ...current, ...changes }));
    try {
      await api.patch(base, changes);
      issue.reload();
    } catch (failure) {
      setError(failure);
      issue.reload();
    }
  };

  if (issue.error)
    return (
      <main className="page">
        <ErrorLine error={issue.error} />
      </main>
    );
  if (!issue.data)
    return (
      <main className="page">
        <Loading />
      </main>
    );
  const current = issue.data;

  const remove = async () => {
    if (!window.confirm(`Delete ${current.identifier}?`)) return;
    try {
      await api.delete(base);
      navigate(`/w/${ws.id}/board`);
    } catch (failure) {
      setError(failure);
    }
  };

  return (
    <main className="page issue-page">
      <div className="issue-main">
        <p className="identifier">{current.identifier}</p>
        {editing ? (
          <EditText issue={current} onDone={() => setEditing(false)} save={update} />
        ) : (
          <>
            <h1>{current.title}</h1>
            {current.description ? <Markdown text={current.description} /> : <p className="muted">No description.</p>}
            <div className="actions left">
              <button type="button" onClick={() => setEditing(true)}>
                Edit
              </button>
              <button type="button" className="danger" onClick={remove}>
                Delete issue
              </button>
            </div>
          </>
        )}
        <ErrorLine error={error} />
        <IssueWork issue={current} revision={revision} />
        <Comments issueId={issueId} revision={revision} />
        <section aria-labelledby="activity-heading">
          <h2 id="activity-heading">Activity</h2>
          <ol className="timeline">
            {(activity.data ?? []).map((entry) => (
              <li key={entry.id}>
                <span className="who">{actorName(ws, entry.actor_type, entry.actor_id)}</span> {describeActivity(entry)}{" "}
                <time className="muted">{entry.created_at.slice(0, 19).replace("T", " ")}</time>
              </li>
            ))}
          </ol>
        </section>
      </div>
      <aside className="issue-side" aria-label="Issue fields">
        <IssueFields issue={current} update={update} revision={revision} />
        <IssueRelations issue={current} revision={revision} />
      </aside>
    </main>
  );
}

function describeActivity(entry: Activity): string {
  const changes = entry.details?.changes as Record<string, { from: unknown; to: unknown }> | undefined;
  if (entry.action === "issue.updated" && changes) {
    return `changed ${Object.entries(changes)
      .map(([field, change]) => `${field} from ${String(change.from ?? "none")} to ${String(change.to ?? "none")}`)
      .join(", ")}`;
  }
  return entry.action.replace(".", " ").replace("_", " ");
}

function EditText({
  issue,
  onDone,
  save,
}: {
  issue: Issue;
  onDone: () => void;
  save: (changes: Partial<Issue>) => Promise<void>;
}) {
  const ws = useWorkspace();
  const [error, setError] = useState<unknown>();
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const description = String(form.get("description") ?? "");
    try {
      await api.patch(`workspaces/${ws.id}/issues/${issue.id}`, {
        title: String(form.get("title") ?? ""),
        description: description || null,
      });
      await save({});
      onDone();
    } catch (failure) {
      setError(failure);
    }
  };
  return (
    <form onSubmit={submit} noValidate className="edit-issue">
      <Field label="Title" error={fieldError(error, "title")}>
        {(id, describedBy, invalid) => (
          <input
            id={id}
            name="title"
            defaultValue={issue.title}
            aria-describedby={describedBy}
            aria-invalid={invalid}
          />
        )}
      </Field>
      <Field label="Description" error={fieldError(error, "description")} hint="Markdown">
        {(id, describedBy, invalid) => (
          <textarea
            id={id}
            name="description"
            rows={8}
            defaultValue={issue.description ?? ""}
            aria-describedby={describedBy}
            aria-invalid={invalid}
          />
        )}
      </Field>
      <ErrorLine error={formError(error, ["title", "description"])} />
      <div className="actions left">
        <button type="submit" className="primary">
          Save
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
