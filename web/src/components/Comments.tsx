// The comment thread: oldest first, Markdown rendered safely; write, edit and delete (asked first).
import { useState } from "react";
import { api, getAll } from "../api.ts";
import type { Comment } from "../api-types.ts";
import { ErrorLine, FormActions, fieldError, formError, Loaded, TextAreaField } from "../components.tsx";
import { type FieldCheck, maxLength, required, useForm } from "../forms.ts";
import { Markdown } from "../markdown.tsx";
import { useReloadOn, useResource, useSession } from "../use-resource.ts";
import { actorName, useWorkspace } from "../workspace.tsx";
import { useConfirm } from "./ConfirmDialog.tsx";
import { Time } from "./Time.tsx";

const contentCheck = (value: string): FieldCheck => ({
  field: "content",
  label: "Comment",
  value,
  checks: [required, maxLength(100_000)],
});

export function Comments({ issueId, revision }: { issueId: string; revision: number }) {
  const ws = useWorkspace();
  const session = useSession();
  const confirm = useConfirm();
  const base = `workspaces/${ws.id}/issues/${issueId}/comments`;
  const comments = useResource(() => getAll<Comment>(base), [base]);
  useReloadOn(revision, comments.reload);
  const [draft, setDraft] = useState("");
  const [editing, setEditing] = useState<string | null>(null);
  const form = useForm({
    check: () => [contentCheck(draft)],
    send: async () => {
      await api.post(base, { content: draft });
      setDraft("");
      comments.reload();
    },
  });

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
      <form {...form.props}>
        <TextAreaField
          label="Comment"
          error={fieldError(form.error, "content")}
          hint="Markdown"
          rows={3}
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
        />
        <ErrorLine error={formError(form.error, ["content"])} />
        <button type="submit" className="primary">
          Add comment
        </button>
      </form>
      {confirm.dialog}
    </section>
  );
}

function EditComment({ comment, path, onDone }: { comment: Comment; path: string; onDone: () => void }) {
  const [content, setContent] = useState(comment.content);
  const form = useForm({
    check: () => [contentCheck(content)],
    send: async () => {
      await api.patch(path, { content });
      onDone();
    },
  });
  return (
    <form {...form.props}>
      <TextAreaField
        label="Edit comment"
        error={fieldError(form.error, "content")}
        rows={3}
        value={content}
        onChange={(event) => setContent(event.target.value)}
      />
      <ErrorLine error={formError(form.error, ["content"])} />
      <FormActions submit="Save comment" onCancel={onDone} inPlace />
    </form>
  );
}
