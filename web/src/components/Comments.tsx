// The comment thread: oldest first, Markdown rendered safely; write, edit and delete (asked first).
import { type FormEvent, useRef, useState } from "react";
import { api, getAll } from "../api.ts";
import type { Comment } from "../api-types.ts";
import { ErrorLine, Field, fieldError, formError, Loaded } from "../components.tsx";
import { checkForm, maxLength, required, useFocusInvalid } from "../forms.ts";
import { Markdown } from "../markdown.tsx";
import { useReloadOn, useResource, useSession } from "../use-resource.ts";
import { actorName, useWorkspace } from "../workspace.tsx";
import { useConfirm } from "./ConfirmDialog.tsx";
import { Time } from "./Time.tsx";

const LIMIT = 100_000;

export function Comments({ issueId, revision }: { issueId: string; revision: number }) {
  const ws = useWorkspace();
  const session = useSession();
  const confirm = useConfirm();
  const base = `workspaces/${ws.id}/issues/${issueId}/comments`;
  const comments = useResource(() => getAll<Comment>(base), [base]);
  useReloadOn(revision, comments.reload);
  const form = useRef<HTMLFormElement>(null);
  const [draft, setDraft] = useState("");
  const [error, setError] = useState<unknown>();
  useFocusInvalid(form, error);
  const [editing, setEditing] = useState<string | null>(null);

  const add = async (event: FormEvent) => {
    event.preventDefault();
    const invalid = checkForm([
      { field: "content", label: "Comment", value: draft, checks: [required, maxLength(LIMIT)] },
    ]);
    if (invalid) {
      setError(invalid);
      return;
    }
    setError(undefined);
    try {
      await api.post(base, { content: draft });
      setDraft("");
      comments.reload();
    } catch (failure) {
      setError(failure);
    }
  };
  const remove = (comment: Comment) =>
    confirm.ask(
      "Delete this comment?",
      "Delete comment",
      "It is gone for everyone. This cannot be undone.",
      async () => {
        await api.delete(`${base}/${comment.id}`);
        comments.reload();
      },
    );

  return (
    <section aria-labelledby="comments-heading" className="comments">
      <h2 id="comments-heading">Comments</h2>
      <Loaded resource={comments} what="the comments">
        {(list) => (
          <ol>
            {list.map((comment) => (
              <li key={comment.id} className={`comment ${comment.author_type}`}>
                <div className="comment-head">
                  <strong>{actorName(ws, comment.author_type, comment.author_id)}</strong>
                  {comment.author_type === "agent" && <span className="tag">agent</span>}
                  <Time iso={comment.created_at} className="muted" />
                  {comment.updated_at !== comment.created_at && <span className="muted">(edited)</span>}
                  {comment.author_type === "member" &&
                    comment.author_id === session?.user.id &&
                    editing !== comment.id && (
                      <span className="row-actions">
                        <button type="button" className="ghost small" onClick={() => setEditing(comment.id)}>
                          Edit
                        </button>
                        <button type="button" className="ghost small" onClick={() => remove(comment)}>
                          Delete
                        </button>
                      </span>
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
        )}
      </Loaded>
      <form ref={form} onSubmit={add} noValidate>
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
      {confirm.dialog}
    </section>
  );
}

function EditComment({ comment, path, onDone }: { comment: Comment; path: string; onDone: () => void }) {
  const form = useRef<HTMLFormElement>(null);
  const [text, setText] = useState(comment.content);
  const [error, setError] = useState<unknown>();
  useFocusInvalid(form, error);
  const save = async (event: FormEvent) => {
    event.preventDefault();
    const invalid = checkForm([
      { field: "content", label: "Comment", value: text, checks: [required, maxLength(LIMIT)] },
    ]);
    if (invalid) {
      setError(invalid);
      return;
    }
    try {
      await api.patch(path, { content: text });
      onDone();
    } catch (failure) {
      setError(failure);
    }
  };
  return (
    <form ref={form} onSubmit={save} noValidate>
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
