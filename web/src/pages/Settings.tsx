// Members and roles, API keys (the key shown once), webhooks and their deliveries.
import { type FormEvent, useState } from "react";
import { api, getAll } from "../api.ts";
import type { ApiKey, CreatedApiKey, Delivery, Webhook, WebhookWithSecret } from "../api-types.ts";
import { Empty, ErrorLine, Field, fieldError, formError } from "../components.tsx";
import { useResource, useSession } from "../use-resource.ts";
import { useWorkspace } from "../workspace.tsx";

export function Settings() {
  return (
    <main className="page settings">
      <h1>Settings</h1>
      <Members />
      <ApiKeys />
      <Webhooks />
    </main>
  );
}

function Members() {
  const ws = useWorkspace();
  const session = useSession();
  const [error, setError] = useState<unknown>();
  const act = (work: Promise<unknown>) => {
    setError(undefined);
    work.catch(setError);
  };
  const add = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const target = event.currentTarget;
    act(
      api
        .post(`workspaces/${ws.id}/members`, { email: String(form.get("email")), role: String(form.get("role")) })
        .then(() => target.reset()),
    );
  };
  return (
    <section aria-labelledby="members-heading">
      <h2 id="members-heading">Members</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Email</th>
            <th scope="col">Role</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {ws.members.map((member) => (
            <tr key={member.user_id}>
              <td>{member.user.name}</td>
              <td>{member.user.email}</td>
              <td>
                <select
                  aria-label={`Role of ${member.user.name}`}
                  value={member.role}
                  disabled={member.user_id === session?.user.id}
                  onChange={(e) =>
                    act(api.patch(`workspaces/${ws.id}/members/${member.user_id}`, { role: e.target.value }))
                  }
                >
                  <option value="owner">owner</option>
                  <option value="admin">admin</option>
                  <option value="member">member</option>
                </select>
              </td>
              <td>
                <button
                  type="button"
                  className="ghost small"
                  onClick={() => act(api.delete(`workspaces/${ws.id}/members/${member.user_id}`))}
                >
                  {member.user_id === session?.user.id ? "Leave" : "Remove"}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form onSubmit={add} className="inline-form" noValidate>
        <input name="email" type="email" aria-label="Member email" placeholder="someone@example.com" />
        <select name="role" aria-label="New member role" defaultValue="member">
          <option value="member">member</option>
          <option value="admin">admin</option>
          <option value="owner">owner</option>
        </select>
        <button type="submit">Add member</button>
      </form>
      <ErrorLine error={error} />
    </section>
  );
}

function ApiKeys() {
  const ws = useWorkspace();
  const keys = useResource(() => getAll<ApiKey>(`workspaces/${ws.id}/api-keys`), [ws.id]);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [error, setError] = useState<unknown>();
  const create = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const target = event.currentTarget;
    setError(undefined);
    try {
      const key = await api.post<CreatedApiKey>(`workspaces/${ws.id}/api-keys`, {
        name: String(new FormData(target).get("name") ?? ""),
      });
      setCreated(key);
      target.reset();
      keys.reload();
    } catch (failure) {
      setError(failure);
    }
  };
  return (
    <section aria-labelledby="keys-heading">
      <h2 id="keys-heading">API keys</h2>
      {created && (
        <div className="notice" role="status">
          <p>
            New key <strong>{created.name}</strong>. Copy it now: it is not shown again.
          </p>
          <code className="secret">{created.key}</code>
          <button type="button" className="ghost small" onClick={() => setCreated(null)}>
            Done
          </button>
        </div>
      )}
      <ErrorLine error={keys.error} />
      {keys.data?.length === 0 && <Empty>No API keys.</Empty>}
      <ul>
        {(keys.data ?? []).map((key) => (
          <li key={key.id}>
            {key.name} <code>{key.prefix}…</code>{" "}
            <button
              type="button"
              className="ghost small"
              onClick={() => api.delete(`workspaces/${ws.id}/api-keys/${key.id}`).then(keys.reload, setError)}
            >
              Revoke
            </button>
          </li>
        ))}
      </ul>
      <form onSubmit={create} className="inline-form" noValidate>
        <Field label="Key name" error={fieldError(error, "name")}>
          {(id, describedBy, invalid) => (
            <input id={id} name="name" aria-describedby={describedBy} aria-invalid={invalid} />
          )}
        </Field>
        <button type="submit">Create API key</button>
      </form>
      <ErrorLine error={formError(error, ["name"])} />
    </section>
  );
}

function Webhooks() {
  const ws = useWorkspace();
  const hooks = useResource(() => getAll<Webhook>(`workspaces/${ws.id}/webhooks`), [ws.id]);
  const [created, setCreated] = useState<WebhookWithSecret | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [error, setError] = useState<unknown>();
  const create = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const target = event.currentTarget;
    const form = new FormData(target);
    const types = String(form.get("types") ?? "")
      .split(",")
      .map((type) => type.trim())
      .filter(Boolean);
    setError(undefined);
    try {
      const hook = await api.post<WebhookWithSecret>(`workspaces/${ws.id}/webhooks`, {
        url: String(form.get("url")),
        types,
      });
      setCreated(hook);
      target.reset();
      hooks.reload();
    } catch (failure) {
      setError(failure);
    }
  };
  return (
    <section aria-labelledby="hooks-heading">
      <h2 id="hooks-heading">Webhooks</h2>
      {created && (
        <div className="notice" role="status">
          <p>Signing secret for {created.url}. Copy it now: it is not shown again.</p>
          <code className="secret">{created.secret}</code>
          <button type="button" className="ghost small" onClick={() => setCreated(null)}>
            Done
          </button>
        </div>
      )}
      <ErrorLine error={hooks.error} />
      {hooks.data?.length === 0 && <Empty>No webhooks.</Empty>}
      <ul>
        {(hooks.data ?? []).map((hook) => (
          <li key={hook.id}>
            <code>{hook.url}</code> {hook.enabled ? "" : <span className="tag">disabled</span>}{" "}
            <span className="muted">{hook.types.length ? hook.types.join(", ") : "all events"}</span>{" "}
            <button type="button" className="ghost small" onClick={() => setOpen(open === hook.id ? null : hook.id)}>
              {open === hook.id ? "Hide deliveries" : "Deliveries"}
            </button>
            <button
              type="button"
              className="ghost small"
              onClick={() => api.delete(`workspaces/${ws.id}/webhooks/${hook.id}`).then(hooks.reload, setError)}
            >
              Delete
            </button>
            {open === hook.id && <Deliveries webhookId={hook.id} />}
          </li>
        ))}
      </ul>
      <form onSubmit={create} className="inline-form" noValidate>
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
    </section>
  );
}

function Deliveries({ webhookId }: { webhookId: string }) {
  const ws = useWorkspace();
  const deliveries = useResource(
    () => api.get<Delivery[]>(`workspaces/${ws.id}/webhooks/${webhookId}/deliveries?limit=50`),
    [ws.id, webhookId],
  );
  if (deliveries.error) return <ErrorLine error={deliveries.error} />;
  if (deliveries.data?.length === 0) return <Empty>No deliveries yet.</Empty>;
  return (
    <table className="deliveries">
      <thead>
        <tr>
          <th scope="col">Event</th>
          <th scope="col">Attempt</th>
          <th scope="col">Status</th>
          <th scope="col">Response</th>
          <th scope="col">
            <span className="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {(deliveries.data ?? []).map((delivery) => (
          <tr key={delivery.id}>
            <td>
              #{delivery.event_seq} {delivery.event_type}
            </td>
            <td>{delivery.attempt}</td>
            <td>{delivery.status}</td>
            <td>{delivery.response_status ?? delivery.error ?? ""}</td>
            <td>
              <button
                type="button"
                className="ghost small"
                onClick={() =>
                  api
                    .post(`workspaces/${ws.id}/webhooks/${webhookId}/deliveries/${delivery.id}/retry`)
                    .then(deliveries.reload, () => deliveries.reload())
                }
              >
                Retry
              </button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
