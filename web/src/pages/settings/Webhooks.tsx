// Webhooks: the list with each hook's deliveries, a new hook's signing secret shown once with Copy, Delete after
// asking.
import { type FormEvent, useRef, useState } from "react";
import { api, getAll } from "../../api.ts";
import type { Webhook, WebhookWithSecret } from "../../api-types.ts";
import { useConfirm } from "../../components/ConfirmDialog.tsx";
import { CopyButton } from "../../components/CopyButton.tsx";
import { Empty, ErrorLine, Field, fieldError, formError, Loaded } from "../../components.tsx";
import { checkForm, httpUrl, maxLength, required, useFocusInvalid } from "../../forms.ts";
import { useResource } from "../../use-resource.ts";
import { useWorkspace } from "../../workspace.tsx";
import { Deliveries } from "./Deliveries.tsx";

export function Webhooks() {
  const ws = useWorkspace();
  const hooks = useResource(() => getAll<Webhook>(`workspaces/${ws.id}/webhooks`), [ws.id]);
  const confirm = useConfirm();
  const [created, setCreated] = useState<WebhookWithSecret | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [error, setError] = useState<unknown>();
  const form = useRef<HTMLFormElement>(null);
  useFocusInvalid(form, error);

  const create = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const target = event.currentTarget;
    const values = new FormData(target);
    const url = String(values.get("url") ?? "");
    const invalid = checkForm([
      { field: "url", label: "Webhook URL", value: url, checks: [required, httpUrl, maxLength(2000)] },
    ]);
    if (invalid) {
      setError(invalid);
      return;
    }
    const types = String(values.get("types") ?? "")
      .split(",")
      .map((type) => type.trim())
      .filter(Boolean);
    setError(undefined);
    try {
      setCreated(await api.post<WebhookWithSecret>(`workspaces/${ws.id}/webhooks`, { url: url.trim(), types }));
      target.reset();
      hooks.reload();
    } catch (failure) {
      setError(failure);
    }
  };
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
    <section aria-labelledby="hooks-heading">
      <h2 id="hooks-heading">Webhooks</h2>
      {created && (
        <div className="notice" role="status">
          <p>
            Signing secret for <span className="wrap">{created.url}</span>. Copy it now: it is not shown again.
          </p>
          <code className="secret">{created.secret}</code>
          <div className="actions left">
            <CopyButton text={created.secret} />
            <button type="button" className="ghost small" onClick={() => setCreated(null)}>
              Done
            </button>
          </div>
        </div>
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
      <form ref={form} onSubmit={create} className="inline-form" noValidate>
        <Field label="Webhook URL" error={fieldError(error, "url")}>
          {(id, describedBy, invalid) => (
            <input id={id} name="url" type="url" aria-describedby={describedBy} aria-invalid={invalid} />
          )}
        </Field>
        <Field label="Event types" error={fieldError(error, "types")} hint="Comma-separated; empty for all">
          {(id, describedBy, invalid) => (
            <input id={id} name="types" aria-describedby={describedBy} aria-invalid={invalid} />
          )}
        </Field>
        <button type="submit">Add webhook</button>
      </form>
      <ErrorLine error={formError(error, ["url", "types"])} />
      {confirm.dialog}
    </section>
  );
}
