// Parent and sub-issues, and dependencies (add and remove), of one issue; named by identifier and title.
import { type FormEvent, useState } from "react";
import { api } from "../api.ts";
import type { Dependency, Issue } from "../api-types.ts";
import { ErrorLine, LoadFailed } from "../components.tsx";
import { Link } from "../router.tsx";
import type { Resource } from "../use-resource.ts";
import { useWorkspace } from "../workspace.tsx";

export function IssueRelations(props: {
  issue: Issue;
  related: Resource<{ all: Issue[]; dependencies: Dependency[] }>;
  byId: Map<string, Issue>;
}) {
  const { issue, related, byId } = props;
  const ws = useWorkspace();
  const [error, setError] = useState<unknown>();
  const all = related.data?.all ?? [];
  const others = all.filter((each) => each.id !== issue.id);
  const children = all.filter((each) => each.parent_issue_id === issue.id);
  const parent = issue.parent_issue_id ? byId.get(issue.parent_issue_id) : undefined;
  const ref = (other: Issue | undefined) =>
    other ? (
      <Link to={`/w/${ws.id}/issues/${other.id}`}>
        {other.identifier} {other.title}
      </Link>
    ) : (
      <span className="muted">an issue</span>
    );

  const addDependency = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setError(undefined);
    try {
      await api.post(`workspaces/${ws.id}/issues/${issue.id}/dependencies/`, {
        depends_on_issue_id: String(form.get("target") ?? ""),
        type: String(form.get("type") ?? "blocks"),
      });
      related.reload();
    } catch (failure) {
      setError(failure);
    }
  };
  const setParent = async (parentId: string) => {
    setError(undefined);
    try {
      await api.patch(`workspaces/${ws.id}/issues/${issue.id}`, { parent_issue_id: parentId || null });
    } catch (failure) {
      setError(failure);
    }
  };

  if (related.error && !related.data)
    return <LoadFailed error={related.error} onRetry={related.reload} what="the related issues" />;
  return (
    <div className="relations">
      <label className="stack">
        Parent issue
        <select value={issue.parent_issue_id ?? ""} onChange={(event) => setParent(event.target.value)}>
          <option value="">None</option>
          {others.map((each) => (
            <option key={each.id} value={each.id}>
              {each.identifier} {each.title}
            </option>
          ))}
        </select>
      </label>
      {parent && <p>Sub-issue of {ref(parent)}</p>}
      <h3>Sub-issues</h3>
      {children.length ? (
        <ul>
          {children.map((child) => (
            <li key={child.id}>{ref(child)}</li>
          ))}
        </ul>
      ) : (
        <p className="muted">None</p>
      )}
      <h3>Dependencies</h3>
      <ul>
        {(related.data?.dependencies ?? []).map((dependency) => {
          const other = dependency.issue_id === issue.id ? dependency.depends_on_issue_id : dependency.issue_id;
          return (
            <li key={dependency.id}>
              {dependency.issue_id === issue.id ? dependency.type.replace("_", " ") : `${dependency.type} this:`}{" "}
              {ref(byId.get(other))}{" "}
              <button
                type="button"
                className="ghost small"
                aria-label={`Remove dependency on ${byId.get(other)?.identifier ?? "issue"}`}
                onClick={() =>
                  api
                    .delete(`workspaces/${ws.id}/issues/${issue.id}/dependencies/${dependency.id}`)
                    .then(related.reload, setError)
                }
              >
                ×
              </button>
            </li>
          );
        })}
      </ul>
      <form onSubmit={addDependency} className="inline-form">
        <select name="type" aria-label="Dependency type" defaultValue="blocks">
          <option value="blocks">blocks</option>
          <option value="blocked_by">blocked by</option>
          <option value="related">related to</option>
        </select>
        <select name="target" aria-label="Dependency target" required>
          {others.map((each) => (
            <option key={each.id} value={each.id}>
              {each.identifier} {each.title}
            </option>
          ))}
        </select>
        <button type="submit">Add dependency</button>
      </form>
      <ErrorLine error={error} />
    </div>
  );
}
