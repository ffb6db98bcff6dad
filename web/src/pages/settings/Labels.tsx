// Labels: New label (Name, Colour), edit, delete after asking (it comes off every issue).
import { useState } from "react";
import { api } from "../../api.ts";
import type { Label } from "../../api-types.ts";
import { useConfirm } from "../../components/ConfirmDialog.tsx";
import { Empty, Field, fieldError } from "../../components.tsx";
import { colour, required } from "../../forms.ts";
import { useWorkspace } from "../../workspace.tsx";
import { NamedItemDialog } from "./NamedItemDialog.tsx";
import { SettingsSection } from "./SettingsSection.tsx";

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
    <SettingsSection title="Labels" newLabel="New label" onNew={() => setEditing("new")}>
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
    </SettingsSection>
  );
}

function LabelDialog({ label, onClose }: { label?: Label | undefined; onClose: () => void }) {
  const [color, setColor] = useState(label?.color ?? DEFAULT_COLOUR);
  const valid = /^#[0-9a-f]{6}$/i.test(color.trim());
  return (
    <NamedItemDialog
      title={label ? "Edit label" : "New label"}
      collection="labels"
      item={label}
      nameField="name"
      nameLimit={100}
      more={{
        checks: [{ field: "color", label: "Colour", value: color.trim(), checks: [required, colour] }],
        body: { color: color.trim() },
        shown: ["color"],
        fields: (error) => (
          <Field label="Colour" error={fieldError(error, "color")} hint="#RRGGBB, or pick one">
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
        ),
      }}
      onClose={onClose}
    />
  );
}
