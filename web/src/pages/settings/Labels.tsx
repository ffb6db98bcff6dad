// Labels: New label (Name, Colour), edit, delete after asking (it comes off every issue).
import { useState } from "react";
import { api } from "../../api.ts";
import type { Label } from "../../api-types.ts";
import { useConfirm } from "../../components/ConfirmDialog.tsx";
import { Dialog, Empty, ErrorLine, Field, FormActions, fieldError, formError, InputField } from "../../components.tsx";
import { colour, maxLength, required, text, useForm } from "../../forms.ts";
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
  const [color, setColor] = useState(label?.color ?? DEFAULT_COLOUR);
  const form = useForm({
    check: (values) => [
      { field: "name", label: "Name", value: text(values, "name"), checks: [required, maxLength(100)] },
      { field: "color", label: "Colour", value: color.trim(), checks: [required, colour] },
    ],
    send: async (values) => {
      const body = { name: text(values, "name"), color: color.trim() };
      if (label) await api.patch(`workspaces/${ws.id}/labels/${label.id}`, body);
      else await api.post(`workspaces/${ws.id}/labels`, body);
      ws.reload();
      onClose();
    },
  });
  const valid = /^#[0-9a-f]{6}$/i.test(color.trim());
  return (
    <Dialog title={label ? "Edit label" : "New label"} onClose={onClose}>
      <form {...form.props}>
        <InputField
          label="Name"
          error={fieldError(form.error, "name")}
          name="name"
          defaultValue={label?.name}
          autoFocus
        />
        <Field label="Colour" error={fieldError(form.error, "color")} hint="#RRGGBB, or pick one">
          {(control) => (
            <span className="colour-input">
              <input {...control} value={color} onChange={(event) => setColor(event.target.value)} />
              <input
                type="color"
                aria-label="Pick a colour"
                value={valid ? color.trim().toLowerCase() : "#6b7280"}
                onChange={(event) => setColor(event.target.value.toUpperCase())}
              />
            </span>
          )}
        </Field>
        <ErrorLine error={formError(form.error, ["name", "color"])} />
        <FormActions submit={label ? "Save" : "Create"} onCancel={onClose} busy={form.busy} />
      </form>
    </Dialog>
  );
}
