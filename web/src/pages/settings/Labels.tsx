// Labels: New label (Name, Colour), edit, delete after asking (it comes off every issue).
import { type FormEvent, useRef, useState } from "react";
import { api } from "../../api.ts";
import type { Label } from "../../api-types.ts";
import { useConfirm } from "../../components/ConfirmDialog.tsx";
import { Dialog, Empty, ErrorLine, Field, fieldError, formError } from "../../components.tsx";
import { checkForm, colour, maxLength, required, useFocusInvalid } from "../../forms.ts";
import { useWorkspace } from "../../workspace.tsx";

const DEFAULT_COLOUR = "#6B7280";

export function Labels() {
  const ws = useWorkspace();
  const confirm = useConfirm();
  const [editing, setEditing] = useState<Label | "new" | null>(null);
  const remove = (label: Label) =>
    confirm.ask(
      `Delete the label ${label.name}?`,
      "Delete label",
      "It comes off every issue that carries it. This cannot be undone.",
      async () => {
        await api.delete(`workspaces/${ws.id}/labels/${label.id}`);
        ws.reload();
      },
    );
  return (
    <section aria-labelledby="labels-heading">
      <div className="toolbar">
        <h2 id="labels-heading">Labels</h2>
        <button type="button" className="primary" onClick={() => setEditing("new")}>
          New label
        </button>
      </div>
      {ws.labels.length === 0 ? (
        <Empty>No labels yet.</Empty>
      ) : (
        <ul className="rows">
          {ws.labels.map((label) => (
            <li key={label.id}>
              <span className="label">
                <span className="dot" style={{ background: label.color }} aria-hidden="true" />
                {label.name}
              </span>{" "}
              <code className="muted">{label.color}</code>
              <span className="row-actions">
                <button
                  type="button"
                  className="ghost small"
                  aria-label={`Edit ${label.name}`}
                  onClick={() => setEditing(label)}
                >
                  Edit
                </button>
                <button
                  type="button"
                  className="ghost small"
                  aria-label={`Delete ${label.name}`}
                  onClick={() => remove(label)}
                >
                  Delete
                </button>
              </span>
            </li>
          ))}
        </ul>
      )}
      {editing && <LabelDialog label={editing === "new" ? undefined : editing} onClose={() => setEditing(null)} />}
      {confirm.dialog}
    </section>
  );
}

function LabelDialog({ label, onClose }: { label?: Label | undefined; onClose: () => void }) {
  const ws = useWorkspace();
  const form = useRef<HTMLFormElement>(null);
  const [error, setError] = useState<unknown>();
  useFocusInvalid(form, error);
  const [busy, setBusy] = useState(false);
  const [color, setColor] = useState(label?.color ?? DEFAULT_COLOUR);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const name = String(new FormData(event.currentTarget).get("name") ?? "");
    const invalid = checkForm([
      { field: "name", label: "Name", value: name, checks: [required, maxLength(100)] },
      { field: "color", label: "Colour", value: color.trim(), checks: [required, colour] },
    ]);
    if (invalid) {
      setError(invalid);
      return;
    }
    setBusy(true);
    try {
      const body = { name, color: color.trim() };
      if (label) await api.patch(`workspaces/${ws.id}/labels/${label.id}`, body);
      else await api.post(`workspaces/${ws.id}/labels`, body);
      ws.reload();
      onClose();
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  };
  const valid = /^#[0-9a-f]{6}$/i.test(color.trim());
  return (
    <Dialog title={label ? "Edit label" : "New label"} onClose={onClose}>
      <form ref={form} onSubmit={submit} noValidate>
        <Field label="Name" error={fieldError(error, "name")}>
          {(id, describedBy, invalid) => (
            <input
              id={id}
              name="name"
              defaultValue={label?.name}
              aria-describedby={describedBy}
              aria-invalid={invalid}
              autoFocus
            />
          )}
        </Field>
        <Field label="Colour" error={fieldError(error, "color")} hint="#RRGGBB, or pick one">
          {(id, describedBy, invalid) => (
            <span className="colour-input">
              <input
                id={id}
                value={color}
                onChange={(event) => setColor(event.target.value)}
                aria-describedby={describedBy}
                aria-invalid={invalid}
              />
              <input
                type="color"
                aria-label="Pick a colour"
                value={valid ? color.trim().toLowerCase() : "#6b7280"}
                onChange={(event) => setColor(event.target.value.toUpperCase())}
              />
            </span>
          )}
        </Field>
        <ErrorLine error={formError(error, ["name", "color"])} />
        <div className="actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={busy}>
            {label ? "Save" : "Create"}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
