// API keys: the list (prefix only), a new key shown once with Copy, Revoke after asking.
import { useState } from "react";
import { api, getAll } from "../../api.ts";
import type { ApiKey, CreatedApiKey } from "../../api-types.ts";
import { useConfirm } from "../../components/ConfirmDialog.tsx";
import { Time } from "../../components/Time.tsx";
import { Empty, ErrorLine, fieldError, formError, InputField, Loaded } from "../../components.tsx";
import { maxLength, required, text, useForm } from "../../forms.ts";
import { useResource } from "../../use-resource.ts";
import { actorName, useWorkspace } from "../../workspace.tsx";
import { SecretOnce } from "./SecretOnce.tsx";
import { SettingsSection } from "./SettingsSection.tsx";

export function ApiKeys() {
  const ws = useWorkspace();
  const keys = useResource(() => getAll<ApiKey>(`workspaces/${ws.id}/api-keys`), [ws.id]);
  const confirm = useConfirm();
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const form = useForm({
    check: (values) => [
      { field: "name", label: "Key name", value: text(values, "name"), checks: [required, maxLength(200)] },
    ],
    send: async (values, target) => {
      setCreated(await api.post<CreatedApiKey>(`workspaces/${ws.id}/api-keys`, { name: text(values, "name") }));
      target.reset();
      keys.reload();
    },
  });
  const revoke = (key: ApiKey) =>
    confirm.ask(
      `Revoke the key ${key.name}?`,
      "Revoke key",
      `Anything still using the key ${key.prefix}… stops working at once. This cannot be undone.`,
      async () => {
        await api.delete(`workspaces/${ws.id}/api-keys/${key.id}`);
        keys.reload();
      },
    );

  return (
    <SettingsSection title="API keys">
      {created && (
        <SecretOnce secret={created.key} onDone={() => setCreated(null)}>
          New key <strong>{created.name}</strong>
        </SecretOnce>
      )}
      <Loaded resource={keys} what="the API keys">
        {(list) =>
          list.length === 0 ? (
            <Empty>No API keys.</Empty>
          ) : (
            <ul className="rows">
              {list.map((key) => (
                <li key={key.id}>
                  <strong>{key.name}</strong> <code>{key.prefix}…</code>{" "}
                  <span className="muted">
                    made by {actorName(ws, "member", key.created_by)} <Time iso={key.created_at} />
                    {key.last_used_at ? (
                      <>
                        , last used <Time iso={key.last_used_at} />
                      </>
                    ) : (
                      ", never used"
                    )}
                  </span>{" "}
                  <button type="button" className="ghost small" onClick={() => revoke(key)}>
                    Revoke
                  </button>
                </li>
              ))}
            </ul>
          )
        }
      </Loaded>
      <h3>New key</h3>
      <form {...form.props} className="inline-form">
        <InputField label="Key name" error={fieldError(form.error, "name")} name="name" />
        <button type="submit">Create API key</button>
      </form>
      <ErrorLine error={formError(form.error, ["name"])} />
      {confirm.dialog}
    </SettingsSection>
  );
}
