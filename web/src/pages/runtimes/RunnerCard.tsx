// One runner: its name, status, machine and version, when it was last seen, and each runtime it offers (kind,
// version, tags, status, running tasks).
import { type Runner, type Runtime, runtimeKindTitle } from "../../api-types.ts";
import { Time } from "../../components/Time.tsx";

const STATUS = { online: "Online", offline: "Offline" } as const;

export function RunnerCard(props: { runner: Runner; runtimes: Runtime[]; onDelete: (() => void) | undefined }) {
  const { runner, runtimes } = props;
  return (
    <li>
      <article className="runner card" aria-label={`Runner ${runner.name}`}>
        <header className="runner-head">
          <strong>{runner.name}</strong>
          <span className={`status r-${runner.status}`}>{STATUS[runner.status]}</span>
          <span className="muted">
            {runner.host ? `${runner.host} · ` : ""}runner {runner.version} · last seen{" "}
            <Time iso={runner.last_seen_at} />
          </span>
          {props.onDelete && (
            <button type="button" className="ghost small push-end" onClick={props.onDelete}>
              Delete runner
            </button>
          )}
        </header>
        {runtimes.length === 0 ? (
          <p className="muted">It offers no runtimes.</p>
        ) : (
          <ul className="runtime-list" aria-label={`Runtimes of ${runner.name}`}>
            {runtimes.map((runtime) => (
              <li key={runtime.id}>
                <strong>{runtime.name}</strong> <span className="tag">{runtimeKindTitle(runtime.kind)}</span>
                {runtime.version && <span className="muted"> {runtime.version}</span>}{" "}
                <span className={`status r-${runtime.status}`}>{STATUS[runtime.status]}</span>{" "}
                <span className="muted">
                  {runtime.running_tasks} of {runtime.max_concurrent_tasks} running
                </span>
                {runtime.tags.length > 0 && (
                  <span className="runtime-tags">
                    {" "}
                    {runtime.tags.map((tag) => (
                      <span key={tag} className="label">
                        {tag}
                      </span>
                    ))}
                  </span>
                )}
              </li>
            ))}
          </ul>
        )}
      </article>
    </li>
  );
}
