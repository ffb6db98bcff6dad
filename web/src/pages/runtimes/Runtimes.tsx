// The Runtimes page: the workspace's runners with the runtimes each offers, live from the event stream; admins also
// delete a runner and manage the runner tokens that let a machine join.
import { useEffect } from "react";
import { api, getAll } from "../../api.ts";
import type { Runner, Runtime } from "../../api-types.ts";
import { useConfirm } from "../../components/ConfirmDialog.tsx";
import { Empty, Loaded } from "../../components.tsx";
import { useCoalesced, useWorkspaceEvents } from "../../live.ts";
import { useResource, useSession } from "../../use-resource.ts";
import { isAdmin, useWorkspace } from "../../workspace.tsx";
import { RunnerCard } from "./RunnerCard.tsx";
import { RunnerTokens } from "./RunnerTokens.tsx";

const LAST_SEEN_REFRESH_MS = 30_000;

export function Runtimes() {
  const ws = useWorkspace();
  const session = useSession();
  const admin = isAdmin(ws, session?.user.id);
  const confirm = useConfirm();
  const runners = useResource(async () => {
    const [list, runtimes] = await Promise.all([
      getAll<Runner>(`workspaces/${ws.id}/runners`),
      getAll<Runtime>(`workspaces/${ws.id}/runtimes`),
    ]);
    return list.map((runner) => ({ runner, runtimes: runtimes.filter((each) => each.runner_id === runner.id) }));
  }, [ws.id]);
  const reload = useCoalesced(runners.reload);
  useWorkspaceEvents(ws.id, (event) => {
    // Running tasks change with tasks; a runner (de)registering, going silent or deleted is a runtime event.
    if (event.type === "stream.open" || /^(runtime|task)\./.test(event.type)) reload();
  });
  // A runner's calls renew its last_seen_at without an event: asked again now and then, "last seen" stays true.
  useEffect(() => {
    const timer = setInterval(runners.reload, LAST_SEEN_REFRESH_MS);
    return () => clearInterval(timer);
  }, [runners.reload]);
  const remove = (runner: Runner) =>
    confirm.ask(
      `Delete the runner ${runner.name}?`,
      "Delete runner",
      "Its runtimes go with it and the tasks it is running go back to the queue. A runner still running registers again on its next start.",
      async () => {
        await api.delete(`workspaces/${ws.id}/runners/${runner.id}`);
        runners.reload();
      },
    );

  return (
    <main className="page runtimes-page">
      <h1>Runtimes</h1>
      <p className="muted">
        A runner is a machine that works the tasks of agents bound to it, with the agent CLIs it offers as runtimes.
      </p>
      <section aria-labelledby="runners-heading">
        <h2 id="runners-heading">Runners</h2>
        <Loaded resource={runners} what="the runners">
          {(list) =>
            list.length === 0 ? (
              <Empty>
                No runners yet.{" "}
                {admin ? "Create a runner token below and start a runner with it." : "An admin can add one."}
              </Empty>
            ) : (
              <ul className="runner-list">
                {list.map(({ runner, runtimes }) => (
                  <RunnerCard
                    key={runner.id}
                    runner={runner}
                    runtimes={runtimes}
                    onDelete={admin ? () => remove(runner) : undefined}
                  />
                ))}
              </ul>
            )
          }
        </Loaded>
      </section>
      {admin && <RunnerTokens />}
      {confirm.dialog}
    </main>
  );
}
