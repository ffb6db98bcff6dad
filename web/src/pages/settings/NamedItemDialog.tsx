// New and Edit of a workspace's named things (projects, labels): a Name field and whatever else the thing has; Create
// posts to the collection, Save patches the one edited, then the workspace (its pickers and filters) reloads.
import type { ReactNode } from "react";
import { api } from "../../api.ts";
import { Dialog, ErrorLine, FormActions, fieldError, formError, InputField } from "../../components.tsx";
import { type FieldCheck, maxLength, required, text, useForm } from "../../forms.ts";
import { useWorkspace } from "../../workspace.tsx";

export function NamedItemDialog(props: {
  title: string;
  collection: "projects" | "labels";
  /** The one edited, or undefined for a new one. */
  item: { id: string; name: string } | undefined;
  /** The API's field for the name, and its longest. */
  nameField: string;
  nameLimit: number;
  /** The rest: their checks, their part of the body, their fields (and the API names they answer to). */
  more?: { checks: FieldCheck[]; body: Record<string, string>; fields: (error: unknown) => ReactNode; shown: string[] };
  onClose: () => void;
}) {
  const ws = useWorkspace();
  const { item, nameField, more } = props;
  const form = useForm({
    check: (values) => [
      { field: nameField, label: "Name", value: text(values, "name"), checks: [required, maxLength(props.nameLimit)] },
      ...(more?.checks ?? []),
    ],
    send: async (values) => {
      const path = `workspaces/${ws.id}/${props.collection}`;
      const body = { [nameField]: text(values, "name"), ...more?.body };
      if (item) await api.patch(`${path}/${item.id}`, body);
      else await api.post(path, body);
      ws.reload();
      props.onClose();
    },
  });
  return (
    <Dialog title={props.title} onClose={props.onClose}>
      <form {...form.props}>
        <InputField
          label="Name"
          error={fieldError(form.error, nameField)}
          name="name"
          defaultValue={item?.name}
          autoFocus
        />
        {more?.fields(form.error)}
        <ErrorLine error={formError(form.error, [nameField, ...(more?.shown ?? [])])} />
        <FormActions submit={item ? "Save" : "Create"} onCancel={props.onClose} busy={form.busy} />
      </form>
    </Dialog>
  );
}
