// API keys: the list (prefix only), a new key shown once with Copy, Revoke after asking.
import { type FormEvent, useRef, useState } from "react";
import { api, getAll } from "../../api.ts";
import type { ApiKey, CreatedApiKey } from "../../api-types.ts";
import { useConfirm } from "../../components/ConfirmDialog.tsx";
import { CopyButton } from "../../components/CopyButton.tsx";
import { Time } from "../../components/Time.tsx";
import { Empty, ErrorLine, Field, fieldError, formError, Loaded } from "../../components.tsx";
import { checkForm, maxLength, required, useFocusInvalid } from "../../forms.ts";
import { useResource } from "../../use-resource.ts";
import { actorName, useWorkspace } from "../../workspace.tsx";

export function ApiKeys() {
  const ws = useWorkspace();
  const keys = useResource(() => getAll<ApiKey>(`workspaces/${ws.id}/api-keys`), [ws.id]);
  const confirm = useConfirm();
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [error, setError] = useState<unknown>();
  const form = useRef<HTMLFormElement>(null);
  useFocusInvalid(form, error);

  const create = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const target = event.currentTarget;
    const name = String(new FormData(target).get("name") ?? "");
    const invalid = checkForm([{ field: "name", label: "Key name", value: name, checks: [required, maxLength(200)] }]);
    if (invalid) {
      setError(invalid);
      return;
    }
    setError(undefined);
    try {
      setCreated(await api.post<CreatedApiKey>(`workspaces/${ws.id}/api-keys`, { name }));
      target.reset();
      keys.reload();
    } catch (failure) {
      setError(failure);
    }
  };
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
    <section aria-labelledby="keys-heading">
      <h2 id="keys-heading">API keys</h2>
      {created && (
        <div className="notice" role="status">
          <p>
            New key <strong>{created.name}</strong>. Copy it now: it is not shown again.
          </p>
          <code className="secret">{created.key}</code>
          <div className="actions left">
            <CopyButton text={created.key} />
            <button type="button" className="ghost small" onClick={() => setCreated(null)}>
              Done
            </button>
          </div>
        </div>
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
      <form ref={form} onSubmit={create} className="inline-form" noValidate>
        <Field label="Key name" error={fieldError(error, "name")}>
          {(id, describedBy, invalid) => (
            <input id={id} name="name" aria-describedby={describedBy} aria-invalid={invalid} />
          )}
        </Field>
        <button type="submit">Create API key</button>
      </form>
      <ErrorLine error={formError(error, ["name"])} />
      {confirm.dialog}
    </section>
  );
}
