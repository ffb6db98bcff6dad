// Webhooks: the list with each hook's deliveries, a new hook's signing secret shown once with Copy, Delete after
// asking.
import { useState } from "react";
import { api, getAll } from "../../api.ts";
import type { Webhook, WebhookWithSecret } from "../../api-types.ts";
import { useConfirm } from "../../components/ConfirmDialog.tsx";
import { Empty, ErrorLine, fieldError, formError, InputField, Loaded } from "../../components.tsx";
import { httpUrl, maxLength, required, text, useForm } from "../../forms.ts";
import { useResource } from "../../use-resource.ts";
import { useWorkspace } from "../../workspace.tsx";
import { Deliveries } from "./Deliveries.tsx";
import { SecretOnce } from "./SecretOnce.tsx";
import { SettingsSection } from "./SettingsSection.tsx";

export function Webhooks() {
  const ws = useWorkspace();
  const hooks = useResource(() => getAll<Webhook>(`workspaces/${ws.id}/webhooks`), [ws.id]);
  const confirm = useConfirm();
  const [created, setCreated] = useState<WebhookWithSecret | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const form = useForm({
    check: (values) => [
      { field: "url", label: "Webhook URL", value: text(values, "url"), checks: [required, httpUrl, maxLength(2000)] },
    ],
    send: async (values, target) => {
      const types = text(values, "types")
        .split(",")
        .map((type) => type.trim())
        .filter(Boolean);
      const url = text(values, "url").trim();
      setCreated(await api.post<WebhookWithSecret>(`workspaces/${ws.id}/webhooks`, { url, types }));
      target.reset();
      hooks.reload();
    },
  });
  const remove = (hook: Webhook) =>
    confirm.ask(
      "Delete this webhook?",
      "Delete webhook",
      <>
        <code className="wrap">{hook.url}</code> gets no more events, and its delivery log goes with it.
      </>,
      async () => {
        await api.delete(`workspaces/${ws.id}/webhooks/${hook.id}`);
        hooks.reload();
      },
    );

  return (
    <SettingsSection title="Webhooks">
      {created && (
        <SecretOnce secret={created.secret} onDone={() => setCreated(null)}>
          Signing secret for <span className="wrap">{created.url}</span>
        </SecretOnce>
      )}
      <Loaded resource={hooks} what="the webhooks">
        {(list) =>
          list.length === 0 ? (
            <Empty>No webhooks.</Empty>
          ) : (
            <ul className="rows">
              {list.map((hook) => (
                <li key={hook.id}>
                  <code className="wrap">{hook.url}</code> {hook.enabled ? "" : <span className="tag">disabled</span>}{" "}
                  <span className="muted">{hook.types.length ? hook.types.join(", ") : "all events"}</span>{" "}
                  {hook.disabled_reason && <span className="error">{hook.disabled_reason}</span>}
                  <span className="row-actions">
                    <button
                      type="button"
                      className="ghost small"
                      aria-expanded={open === hook.id}
                      onClick={() => setOpen(open === hook.id ? null : hook.id)}
                    >
                      Deliveries
                    </button>
                    <button type="button" className="ghost small" onClick={() => remove(hook)}>
                      Delete
                    </button>
                  </span>
                  {open === hook.id && <Deliveries webhookId={hook.id} />}
                </li>
              ))}
            </ul>
          )
        }
      </Loaded>
      <h3>New webhook</h3>
      <form {...form.props} className="inline-form">
        <InputField label="Webhook URL" error={fieldError(form.error, "url")} name="url" type="url" />
        <InputField
          label="Event types"
          error={fieldError(form.error, "types")}
          hint="Comma-separated; empty for all"
          name="types"
        />
        <button type="submit">Add webhook</button>
      </form>
      <ErrorLine error={formError(form.error, ["url", "types"])} />
      {confirm.dialog}
    </SettingsSection>
  );
}
