// Runner tokens (admins): the list, a new token shown once with Copy and the command that starts a runner with it,
// Revoke after asking.
import { useState } from "react";
import { api, getAll } from "../../api.ts";
import type { CreatedRunnerToken, RunnerToken } from "../../api-types.ts";
import { useConfirm } from "../../components/ConfirmDialog.tsx";
import { CopyButton } from "../../components/CopyButton.tsx";
import { Time } from "../../components/Time.tsx";
import { Empty, ErrorLine, fieldError, formError, InputField, Loaded } from "../../components.tsx";
import { maxLength, required, text, useForm } from "../../forms.ts";
import { useCoalesced, useWorkspaceEvents } from "../../live.ts";
import { useResource } from "../../use-resource.ts";
import { useWorkspace } from "../../workspace.tsx";

/** What a person types to start a runner against this server (the dashboard is served by it). */
export const runnerCommand = (token: string): string =>
  `npx agent-platform runner --url ${window.location.origin} --token ${token}`;

export function RunnerTokens() {
  const ws = useWorkspace();
  const tokens = useResource(() => getAll<RunnerToken>(`workspaces/${ws.id}/runner-tokens`), [ws.id]);
  const reload = useCoalesced(tokens.reload);
  useWorkspaceEvents(ws.id, (event) => {
    if (event.type === "stream.open" || event.type.startsWith("runner_token.")) reload();
  });
  const confirm = useConfirm();
  const [created, setCreated] = useState<CreatedRunnerToken | null>(null);
  const form = useForm({
    check: (values) => [
      { field: "name", label: "Token name", value: text(values, "name"), checks: [required, maxLength(200)] },
    ],
    send: async (values, target) => {
      setCreated(
        await api.post<CreatedRunnerToken>(`workspaces/${ws.id}/runner-tokens`, { name: text(values, "name") }),
      );
      target.reset();
      tokens.reload();
    },
  });
  const revoke = (token: RunnerToken) =>
    confirm.ask(
      `Revoke the runner token ${token.name}?`,
      "Revoke token",
      "Runners using it are refused from their next call; the tasks they hold go back to the queue. This cannot be undone.",
      async () => {
        await api.delete(`workspaces/${ws.id}/runner-tokens/${token.id}`);
        tokens.reload();
      },
    );

  return (
    <section aria-labelledby="runner-tokens-heading">
      <h2 id="runner-tokens-heading">Runner tokens</h2>
      {created && (
        <div className="notice" role="status">
          <p>
            New runner token <strong>{created.name}</strong>. Copy it now: it is not shown again.
          </p>
          <code className="secret">{created.token}</code>
          <div className="actions left">
            <CopyButton text={created.token} />
          </div>
          <p>Start a runner on the machine that has the agent CLIs:</p>
          <code className="secret">{runnerCommand(created.token)}</code>
          <div className="actions left">
            <CopyButton text={runnerCommand(created.token)} label="Copy command" />
            <button type="button" className="ghost small" onClick={() => setCreated(null)}>
              Done
            </button>
          </div>
        </div>
      )}
      <Loaded resource={tokens} what="the runner tokens">
        {(list) =>
          list.length === 0 ? (
            <Empty>No runner tokens.</Empty>
          ) : (
            <ul className="rows" aria-label="Runner tokens">
              {list.map((token) => (
                <li key={token.id}>
                  <strong>{token.name}</strong>{" "}
                  <span className="muted">
                    made <Time iso={token.created_at} />
                  </span>{" "}
                  <button type="button" className="ghost small" onClick={() => revoke(token)}>
                    Revoke
                  </button>
                </li>
              ))}
            </ul>
          )
        }
      </Loaded>
      <h3>New runner token</h3>
      <form {...form.props} className="inline-form">
        <InputField label="Token name" error={fieldError(form.error, "name")} name="name" />
        <button type="submit" disabled={form.busy}>
          Create runner token
        </button>
      </form>
      <ErrorLine error={formError(form.error, ["name"])} />
      {confirm.dialog}
    </section>
  );
}
