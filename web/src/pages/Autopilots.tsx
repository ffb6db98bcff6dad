// The workspace's autopilots: next fire time and last run, New autopilot (name, agent, issue template, one trigger),
// a webhook's URL shown once, Fire now, the runs with links to their issues, and a paused one's reason with Enable.
import { type FormEvent, useState } from "react";
import { api, getAll } from "../api.ts";
import type { Autopilot, AutopilotRun } from "../api-types.ts";
import { Time } from "../components/Time.tsx";
import { Dialog, Empty, ErrorLine, Field, Loaded } from "../components.tsx";
import { useCoalesced, useWorkspaceEvents } from "../live.ts";
import { Link } from "../router.tsx";
import { useResource } from "../use-resource.ts";
import { useWorkspace } from "../workspace.tsx";

type Row = Autopilot & { runs: AutopilotRun[] };

export function Autopilots() {
  const ws = useWorkspace();
  const [creating, setCreating] = useState(false);
  const [shownUrl, setShownUrl] = useState<string | null>(null);
  const list = useResource(async () => {
    const autopilots = await getAll<Autopilot>(`workspaces/${ws.id}/autopilots`);
    return Promise.all(
      autopilots.map(
        async (autopilot): Promise<Row> => ({
          ...autopilot,
          runs: await api.get<AutopilotRun[]>(`workspaces/${ws.id}/autopilots/${autopilot.id}/runs?limit=10`),
        }),
      ),
    );
  }, [ws.id]);
  const reload = useCoalesced(list.reload);
  useWorkspaceEvents(ws.id, (event) => {
    if (event.type.startsWith("autopilot.") || event.type === "stream.open") reload();
  });
  return (
    <main className="page">
      <div className="toolbar">
        <h1>Autopilots</h1>
        <button type="button" className="primary" onClick={() => setCreating(true)}>
          New autopilot
        </button>
      </div>
      {shownUrl && (
        <div className="card" role="status">
          <Field label="Webhook URL" hint="Shown once: copy it now">
            {(control) => <input {...control} readOnly value={shownUrl} />}
          </Field>
        </div>
      )}
      <Loaded resource={list} what="the autopilots">
        {(rows) =>
          rows.length === 0 ? (
            <Empty>
              No autopilots yet. An autopilot files an issue for an agent on a schedule, a webhook or an event.
            </Empty>
          ) : (
            <ul className="autopilots">
              {rows.map((row) => (
                <AutopilotItem key={row.id} row={row} workspaceId={ws.id} onChanged={list.reload} />
              ))}
            </ul>
          )
        }
      </Loaded>
      {creating && (
        <Dialog title="New autopilot" onClose={() => setCreating(false)}>
          <AutopilotForm
            workspaceId={ws.id}
            agents={ws.agents}
            onSaved={(autopilot) => {
              setCreating(false);
              setShownUrl(autopilot.triggers.find((trigger) => trigger.url)?.url ?? null);
              list.reload();
            }}
          />
        </Dialog>
      )}
    </main>
  );
}

function AutopilotItem(props: { row: Row; workspaceId: string; onChanged: () => void }) {
  const { row, workspaceId } = props;
  const [error, setError] = useState<unknown>(null);
  const act = (work: () => Promise<unknown>) => async () => {
    setError(null);
    try {
      await work();
      props.onChanged();
    } catch (caught) {
      setError(caught);
    }
  };
  const path = `workspaces/${workspaceId}/autopilots/${row.id}`;
  const last = row.runs[0];
  return (
    <li className="card" aria-label={row.name}>
      <h2>{row.name}</h2>
      <p className="muted">
        {row.triggers
          .map((trigger) => (trigger.kind === "schedule" ? `${trigger.cron} (${trigger.timezone})` : trigger.kind))
          .join(", ")}
        {" · "}
        {row.next_fire_at ? (
          <>
            next fire <Time iso={row.next_fire_at} />
          </>
        ) : (
          "no next fire"
        )}
        {" · "}last run: {last ? last.status : "none yet"}
      </p>
      {row.paused_reason && (
        <p role="alert">
          {row.paused_reason}{" "}
          <button type="button" onClick={act(() => api.patch(path, { enabled: true }))}>
            Enable
          </button>
        </p>
      )}
      <button type="button" onClick={act(() => api.post(`${path}/fire`))}>
        Fire now
      </button>
      {error !== null && <ErrorLine error={error} />}
      {row.runs.length > 0 && (
        <ul aria-label={`Runs of ${row.name}`}>
          {row.runs.map((run) => (
            <li key={run.id}>
              <Time iso={run.created_at} /> {run.trigger_kind}: {run.status}
              {run.reason && ` (${run.reason})`}{" "}
              {run.issue_id && <Link to={`/w/${workspaceId}/issues/${run.issue_id}`}>issue</Link>}
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

function AutopilotForm(props: {
  workspaceId: string;
  agents: { id: string; name: string }[];
  onSaved: (autopilot: Autopilot) => void;
}) {
  const [kind, setKind] = useState<"schedule" | "webhook" | "event">("schedule");
  const [error, setError] = useState<unknown>(null);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (name: string) => String(form.get(name) ?? "").trim();
    const trigger =
      kind === "schedule"
        ? { kind, cron: text("cron"), timezone: text("timezone") || "UTC" }
        : kind === "webhook"
          ? { kind }
          : {
              kind,
              types: text("types")
                .split(",")
                .map((type) => type.trim())
                .filter(Boolean),
              filter: text("to_status") ? { to_status: text("to_status") } : {},
            };
    try {
      const saved = await api.post<Autopilot>(`workspaces/${props.workspaceId}/autopilots`, {
        name: text("name"),
        agent_id: text("agent"),
        issue: { title: text("title"), description: text("description") || null },
        overlap: text("overlap") || "skip",
        triggers: [trigger],
      });
      props.onSaved(saved);
    } catch (caught) {
      setError(caught);
    }
  };
  return (
    <form onSubmit={submit}>
      <Field label="Name">{(control) => <input {...control} name="name" required />}</Field>
      <Field label="Agent">
        {(control) => (
          <select {...control} name="agent" required>
            {props.agents.map((agent) => (
              <option key={agent.id} value={agent.id}>
                {agent.name}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Issue title" hint="May use {{date}}, {{autopilot}}, {{payload.x}}, {{event.x}}">
        {(control) => <input {...control} name="title" required />}
      </Field>
      <Field label="Issue description">{(control) => <textarea {...control} name="description" />}</Field>
      <Field label="Overlap">
        {(control) => (
          <select {...control} name="overlap">
            <option value="skip">skip while its last issue is open</option>
            <option value="allow">allow</option>
          </select>
        )}
      </Field>
      <Field label="Trigger">
        {(control) => (
          <select {...control} value={kind} onChange={(event) => setKind(event.target.value as typeof kind)}>
            <option value="schedule">schedule</option>
            <option value="webhook">webhook</option>
            <option value="event">event</option>
          </select>
        )}
      </Field>
      {kind === "schedule" && (
        <>
          <Field label="Cron">
            {(control) => <input {...control} name="cron" placeholder="0 9 * * 1-5" required />}
          </Field>
          <Field label="Time zone">
            {(control) => <input {...control} name="timezone" placeholder="Europe/Berlin" />}
          </Field>
        </>
      )}
      {kind === "event" && (
        <>
          <Field label="Event types">
            {(control) => <input {...control} name="types" placeholder="issue.updated" required />}
          </Field>
          <Field label="To status">{(control) => <input {...control} name="to_status" placeholder="done" />}</Field>
        </>
      )}
      {error !== null && <ErrorLine error={error} />}
      <button type="submit" className="primary">
        Create autopilot
      </button>
    </form>
  );
}
