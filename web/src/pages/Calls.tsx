// The voice call log of the workspace (calls of a call server run with CALL_WORKSPACE_ID) and a call's transcript.
// Calls are written by another process and raise no workspace events, so the open page asks again every few seconds.
import { useEffect, useState } from "react";
import { api, getBlob } from "../api.ts";
import type { Call, CallSummary } from "../api-types.ts";
import { CopyButton } from "../components/CopyButton.tsx";
import { Time, withZone } from "../components/Time.tsx";
import { Loaded } from "../components.tsx";
import { Link } from "../router.tsx";
import { useResource } from "../use-resource.ts";
import { useWorkspace } from "../workspace.tsx";

const PAGE_SIZE = 50;
const REFRESH_MS = 5_000;

function useRefresh(reload: () => void, active = true): void {
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [reload, active]);
}

function duration(call: CallSummary): string {
  if (!call.ended_at) return call.status === "queued" || call.status === "ringing" ? call.status : "in progress";
  const ms = Date.parse(withZone(call.ended_at)) - Date.parse(withZone(call.started_at));
  const seconds = call.duration_s ?? Math.max(0, Math.round(ms / 1000));
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/** How a call ended when that is not simply "completed": busy, no answer, an answering machine… */
function outcome(call: CallSummary): string {
  const notes: string[] = [];
  if (call.ended_at && call.status !== "completed" && call.status !== "in-progress") notes.push(call.status);
  if (call.answered_by?.startsWith("machine")) notes.push("answering machine");
  return notes.map((note) => `${note} · `).join("");
}

export function Calls({ callId }: { callId?: string }) {
  const ws = useWorkspace();
  const [offset, setOffset] = useState(0);
  const calls = useResource(
    () => api.get<CallSummary[]>(`workspaces/${ws.id}/calls/?limit=${PAGE_SIZE}&offset=${offset}`),
    [ws.id, offset],
  );
  useRefresh(calls.reload);
  return (
    <main className="page">
      <h1>Calls</h1>
      <Loaded resource={calls} what="the call log">
        {(list) =>
          list.length === 0 && offset === 0 ? (
            <div className="empty card">
              <p>No call log is available from this server.</p>
              <p className="muted">
                Calls are handled by <code>agent-platform call</code>; run it with <code>CALL_WORKSPACE_ID</code> set to
                this workspace's id on this server's database and its calls and transcripts are listed here.
              </p>
              <CopyButton text={ws.id} label="Copy workspace id" />
            </div>
          ) : (
            <div className="split">
              <section aria-labelledby="call-list-heading">
                <h2 id="call-list-heading" className="visually-hidden">
                  Call log
                </h2>
                <ul className="agent-list">
                  {list.map((call) => (
                    <li key={call.id}>
                      <Link
                        to={`/w/${ws.id}/calls/${call.id}`}
                        className={call.id === callId ? "active" : ""}
                        aria-current={call.id === callId ? "page" : undefined}
                      >
                        {call.call_sid ? `Call ${call.call_sid}` : "Call"}
                      </Link>{" "}
                      <span className="muted">
                        {call.direction} · <Time iso={call.started_at} /> · {outcome(call)}
                        {duration(call)} · {call.transcript_count} line
                        {call.transcript_count === 1 ? "" : "s"}
                      </span>
                    </li>
                  ))}
                </ul>
                <div className="toolbar">
                  {offset > 0 && (
                    <button type="button" className="ghost small" onClick={() => setOffset(offset - PAGE_SIZE)}>
                      Newer calls
                    </button>
                  )}
                  {list.length === PAGE_SIZE && (
                    <button type="button" className="ghost small" onClick={() => setOffset(offset + PAGE_SIZE)}>
                      Older calls
                    </button>
                  )}
                </div>
              </section>
              {callId ? (
                <CallTranscript key={callId} workspaceId={ws.id} callId={callId} />
              ) : (
                <p className="muted">Choose a call to read its transcript.</p>
              )}
            </div>
          )
        }
      </Loaded>
    </main>
  );
}

function CallTranscript({ workspaceId, callId }: { workspaceId: string; callId: string }) {
  const call = useResource(() => api.get<Call>(`workspaces/${workspaceId}/calls/${callId}`), [workspaceId, callId]);
  const data = call.data;
  // A finished call no longer changes.
  useRefresh(call.reload, !data?.ended_at);
  return (
    <section aria-labelledby="call-heading" className="chat">
      <h2 id="call-heading">Transcript</h2>
      <Loaded resource={call} what="the call">
        {(data) => (
          <>
            <p className="muted">
              {data.call_sid ?? "No carrier id"} · {data.direction} · started <Time iso={data.started_at} /> ·{" "}
              {outcome(data)}
              {duration(data)}
            </p>
            {data.has_recording && <CallRecording workspaceId={workspaceId} callId={callId} />}
            {data.transcript.length === 0 ? (
              <p className="empty">Nothing was said on this call.</p>
            ) : (
              <ol className="transcript" aria-label="Transcript">
                {data.transcript.map((line) => (
                  <li key={line.seq} className={line.speaker === "caller" ? "bubble user" : "bubble"}>
                    <span className="who">{line.speaker === "caller" ? "Caller" : "Assistant"}</span>
                    <p>{line.text}</p>
                  </li>
                ))}
              </ol>
            )}
          </>
        )}
      </Loaded>
    </section>
  );
}

/** The call's recording in an audio control; fetched with the session's credential and played from memory. */
function CallRecording({ workspaceId, callId }: { workspaceId: string; callId: string }) {
  const [source, setSource] = useState<string>();
  const [problem, setProblem] = useState<string>();
  useEffect(() => {
    let url: string | undefined;
    let cancelled = false;
    getBlob(`workspaces/${workspaceId}/calls/${callId}/recording`).then(
      (blob) => {
        if (cancelled) return;
        url = URL.createObjectURL(blob);
        setSource(url);
      },
      (error: unknown) => !cancelled && setProblem(error instanceof Error ? error.message : String(error)),
    );
    return () => {
      cancelled = true;
      if (url) URL.revokeObjectURL(url);
    };
  }, [workspaceId, callId]);
  if (problem) return <p className="error">The recording could not be loaded: {problem}</p>;
  if (!source) return <p className="muted">Loading the recording…</p>;
  return (
    // biome-ignore lint/a11y/useMediaCaption: a phone call's transcript is shown right below it
    <audio controls src={source} aria-label="Call recording" className="call-recording" />
  );
}
