// A task's run, live: replays runs/{id}/events and follows it until the run ends, resuming with Last-Event-ID
// when the connection drops. A question the run asked is answered from it.
import { useEffect, useState } from "react";
import type { Approval, Question } from "../api-types.ts";
import { openStream, readSse } from "../sse.ts";
import { type AguiEvent, applyEvent, Transcript, type TranscriptItem } from "../transcript.tsx";
import { QuestionCard } from "./QuestionCard.tsx";

const TERMINAL = new Set(["RUN_FINISHED", "RUN_ERROR"]);

export function RunView(props: {
  workspaceId: string;
  runId: string;
  agentName?: string;
  renderApproval?: (approval: Approval, decided: boolean) => React.ReactNode;
  /** Told when a question of the run is answered from it. */
  onAnswered?: () => void;
}) {
  const [items, setItems] = useState<TranscriptItem[]>([]);
  const [live, setLive] = useState(false);
  const { workspaceId, runId } = props;

  useEffect(() => {
    const controller = new AbortController();
    let lastId = 0;
    let ended = false;
    setItems([]);
    const follow = async () => {
      while (!ended && !controller.signal.aborted) {
        try {
          const response = await openStream("GET", `/api/v1/workspaces/${workspaceId}/runs/${runId}/events`, {
            signal: controller.signal,
            headers: lastId > 0 ? { "last-event-id": String(lastId) } : {},
          });
          setLive(true);
          await readSse(
            response,
            (frame) => {
              const id = Number(frame.id);
              if (id && id <= lastId) return;
              if (id) lastId = id;
              const event = JSON.parse(frame.data) as AguiEvent;
              if (TERMINAL.has(event.type)) ended = true;
              setItems((current) => applyEvent(current, event));
            },
            controller.signal,
          );
        } catch {
          if (controller.signal.aborted) return;
        }
        setLive(false);
        if (!ended) await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    };
    void follow();
    return () => controller.abort();
  }, [workspaceId, runId]);

  return (
    <div className="run" aria-live="polite" aria-busy={live}>
      <Transcript
        items={items}
        agentName={props.agentName}
        renderApproval={props.renderApproval}
        renderQuestion={(question: Question) => (
          <QuestionCard
            key={`${question.id}-${question.status}`}
            workspaceId={workspaceId}
            question={question}
            onAnswered={props.onAnswered}
          />
        )}
      />
    </div>
  );
}
