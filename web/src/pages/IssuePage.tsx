// One issue: its text, fields, relations, comment thread, activity, and the agent's tasks and runs, kept live.
import { useMemo, useState } from "react";
import { ApiError, api, getAll } from "../api.ts";
import type { Activity, Dependency, Issue } from "../api-types.ts";
import { ActivityLine } from "../components/ActivityList.tsx";
import { Comments } from "../components/Comments.tsx";
import { useConfirm } from "../components/ConfirmDialog.tsx";
import { IssueFields } from "../components/IssueFields.tsx";
import { IssueRelations } from "../components/IssueRelations.tsx";
import { IssueWork } from "../components/IssueWork.tsx";
import {
  ErrorLine,
  FormActions,
  fieldError,
  formError,
  InputField,
  Loaded,
  LoadFailed,
  Loading,
  NotFound,
  TextAreaField,
} from "../components.tsx";
import { maxLength, required, text, useForm } from "../forms.ts";
import { useCoalesced, useWorkspaceEvents } from "../live.ts";
import { Markdown } from "../markdown.tsx";
import { navigate } from "../router.tsx";
import { useResource } from "../use-resource.ts";
import { useWorkspace } from "../workspace.tsx";

export function IssuePage({ issueId }: { issueId: string }) {
  const ws = useWorkspace();
  const confirm = useConfirm();
  const base = `workspaces/${ws.id}/issues/${issueId}`;
  const issue = useResource(() => api.get<Issue>(base), [base]);
  const activity = useResource(() => api.get<Activity[]>(`${base}/activity?limit=50`), [base]);
  // Every issue of the workspace, for names (parent, sub-issues, dependencies) and the pickers.
  const related = useResource(async () => {
    const [all, dependencies] = await Promise.all([
      getAll<Issue>(`workspaces/${ws.id}/issues/`),
      getAll<Dependency>(`${base}/dependencies/`),
    ]);
    return { all, dependencies };
  }, [ws.id, base]);
  const byId = useMemo(() => new Map((related.data?.all ?? []).map((each) => [each.id, each])), [related.data]);
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState<unknown>();
  const [revision, setRevision] = useState(0);

  const reloadIssue = useCoalesced(issue.reload, 50);
  const reloadActivity = useCoalesced(activity.reload, 100);
  const reloadRelated = useCoalesced(related.reload, 100);
  const bump = useCoalesced(() => setRevision((value) => value + 1), 50);
  useWorkspaceEvents(ws.id, (event) => {
    if (event.type === "stream.open") {
      reloadIssue();
      reloadActivity();
      reloadRelated();
      bump();
      return;
    }
    if (event.type.startsWith("issue.") || event.type.startsWith("dependency.")) reloadRelated();
    // A runtime coming or going changes whether this issue's queued task waits for one.
    if (event.type.startsWith("runtime.")) bump();
    // So does a budget reached, raised or lowered (waiting_for: budget).
    if (event.type.startsWith("budget.") || event.type === "agent.status_changed") bump();
    if (event.issue_id !== issueId && event.entity_id !== issueId) return;
    if (event.type.startsWith("issue.") || event.type.startsWith("label.")) reloadIssue();
    reloadActivity();
    bump();
  });

  const update = async (changes: Partial<Issue>) => {
    setError(undefined);
    issue.set((current) => ({ ...current, ...changes }));
    try {
      await api.patch(base, changes);
    } catch (failure) {
      setError(failure);
    }
    issue.reload();
  };

  if (issue.error instanceof ApiError && issue.error.status === 404)
    return <NotFound home={`/w/${ws.id}/board`} what="Issue" />;
  if (!issue.data)
    return (
      <main className="page">
        {issue.error ? <LoadFailed error={issue.error} onRetry={issue.reload} what="the issue" /> : <Loading />}
      </main>
    );
  const current = issue.data;

  const remove = () =>
    confirm.ask(
      `Delete ${current.identifier}?`,
      "Delete issue",
      "Its comments, label links and dependencies go with it; its sub-issues stay, without a parent.",
      async () => {
        await api.delete(base);
        navigate(`/w/${ws.id}/board`);
      },
    );

  return (
    <main className="page issue-page">
      <div className="issue-main">
        <p className="identifier">{current.identifier}</p>
        {editing ? (
          <EditText issue={current} onDone={() => setEditing(false)} reload={issue.reload} />
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
          <Loaded resource={activity} what="the activity">
            {(entries) => (
              <ol className="timeline">
                {entries.map((entry) => (
                  <li key={entry.id}>
                    <ActivityLine entry={entry} ws={ws} issues={byId} />
                  </li>
                ))}
              </ol>
            )}
          </Loaded>
        </section>
      </div>
      <aside className="issue-side" aria-label="Issue fields">
        <IssueFields issue={current} update={update} setIssue={issue.set} reload={issue.reload} />
        <IssueRelations issue={current} related={related} byId={byId} />
      </aside>
      {confirm.dialog}
    </main>
  );
}

function EditText({ issue, onDone, reload }: { issue: Issue; onDone: () => void; reload: () => void }) {
  const ws = useWorkspace();
  const form = useForm({
    check: (values) => [
      { field: "title", label: "Title", value: text(values, "title"), checks: [required, maxLength(500)] },
      {
        field: "description",
        label: "Description",
        value: text(values, "description"),
        checks: [maxLength(100_000)],
      },
    ],
    send: async (values) => {
      const body = { title: text(values, "title"), description: text(values, "description") || null };
      await api.patch(`workspaces/${ws.id}/issues/${issue.id}`, body);
      reload();
      onDone();
    },
  });
  return (
    <form {...form.props} className="edit-issue">
      <InputField label="Title" error={fieldError(form.error, "title")} name="title" defaultValue={issue.title} />
      <TextAreaField
        label="Description"
        error={fieldError(form.error, "description")}
        hint="Markdown"
        name="description"
        rows={8}
        defaultValue={issue.description ?? ""}
      />
      <ErrorLine error={formError(form.error, ["title", "description"])} />
      <FormActions submit="Save" onCancel={onDone} inPlace />
    </form>
  );
}
