// The comment thread: oldest first, Markdown rendered safely; write, edit and delete.
import { type FormEvent, useState } from "react";
import { api, getAll } from "../api.ts";
import type { Comment } from "../api-types.ts";
import { ErrorLine, Field, fieldError, formError } from "../components.tsx";
import { Markdown } from "../markdown.tsx";
import { useResource, useSession } from "../use-resource.ts";
import { actorName, useWorkspace } from "../workspace.tsx";

export function Comments({ issueId, revision }: { issueId: string; revision: number }) {
  const ws = useWorkspace();
  const session = useSession();
  const base = `workspaces/${ws.id}/issues/${issueId}/comments`;
  const comments = useResource(() => getAll<Comment>(base), [base, revision]);
  const [draft, setDraft] = useState("");
  const [error, setError] = useState<unknown>();
  const [editing, setEditing] = useState<string | null>(null);

  const add = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    try {
      await api.post(base, { content: draft });
      setDraft("");
      comments.reload();
    } catch (failure) {
      setError(failure);
    }
  };

  return (
    <section aria-labelledby="comments-heading" className="comments">
      <h2 id="comments-heading">Comments</h2>
      <ol>
        {(comments.data ?? []).map((comment) => (
          <li key={comment.id} className={`comment ${comment.author_type}`}>
            <div className="comment-head">
              <strong>{actorName(ws, comment.author_type, comment.author_id)}</strong>
              {comment.author_type === "agent" && <span className="tag">agent</span>}
              <time className="muted">{comment.created_at.slice(0, 16).replace("T", " ")}</time>
              {comment.author_type === "member" && comment.author_id === session?.user.id && editing !== comment.id && (
                <>
                  <button type="button" className="ghost small" onClick={() => setEditing(comment.id)}>
                    Edit
                  </button>
                  <button
                    type="button"
                    className="ghost small"
                    onClick={() => api.delete(`${base}/${comment.id}`).then(comments.reload, setError)}
                  >
                    Delete
                  </button>
                </>
              )}
            </div>
            {editing === comment.id ? (
              <EditComment
                comment={comment}
                path={`${base}/${comment.id}`}
                onDone={() => {
                  setEditing(null);
                  comments.reload();
                }}
              />
            ) : (
              <Markdown text={comment.content} />
            )}
          </li>
        ))}
      </ol>
      <form onSubmit={add} noValidate>
        <Field label="Comment" error={fieldError(error, "content")} hint="Markdown">
          {(id, describedBy, invalid) => (
            <textarea
              id={id}
              rows={3}
              value={draft}
              onChange={(event) => setDraft(event.target.value)}
              aria-describedby={describedBy}
              aria-invalid={invalid}
            />
          )}
        </Field>
        <ErrorLine error={formError(error, ["content"])} />
        <button type="submit" className="primary">
          Add comment
        </button>
      </form>
    </section>
  );
}

function EditComment({ comment, path, onDone }: { comment: Comment; path: string; onDone: () => void }) {
  const [text, setText] = useState(comment.content);
  const [error, setError] = useState<unknown>();
  const save = async (event: FormEvent) => {
    event.preventDefault();
    try {
      await api.patch(path, { content: text });
      onDone();
    } catch (failure) {
      setError(failure);
    }
  };
  return (
    <form onSubmit={save} noValidate>
      <Field label="Edit comment" error={fieldError(error, "content")}>
        {(id, describedBy, invalid) => (
          <textarea
            id={id}
            rows={3}
            value={text}
            onChange={(event) => setText(event.target.value)}
            aria-describedby={describedBy}
            aria-invalid={invalid}
          />
        )}
      </Field>
      <ErrorLine error={formError(error, ["content"])} />
      <div className="actions left">
        <button type="submit" className="primary">
          Save comment
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
