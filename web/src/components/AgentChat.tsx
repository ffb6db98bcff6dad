// A chat with an agent over POST /agui (official AG-UI events): the thread id and messages are kept for the tab,
// tool calls are shown as they happen.
import { type FormEvent, useRef, useState } from "react";
import { ErrorLine } from "../components.tsx";
import { openStream, readSse } from "../sse.ts";
import { type AguiEvent, applyEvent, Transcript, type TranscriptItem } from "../transcript.tsx";

interface ChatMessage {
  id: string;
  role: "user" | "assistant";
  content: string;
}

interface Thread {
  threadId: string;
  messages: ChatMessage[];
  items: TranscriptItem[];
}

const storageKey = (agentId: string) => `agent-platform.chat.${agentId}`;

function loadThread(agentId: string): Thread {
  try {
    const stored = sessionStorage.getItem(storageKey(agentId));
    if (stored) return JSON.parse(stored) as Thread;
  } catch {}
  return { threadId: crypto.randomUUID(), messages: [], items: [] };
}

export function AgentChat({ agentId, agentName }: { agentId: string; agentName: string }) {
  const [thread, setThread] = useState(() => loadThread(agentId));
  const [draft, setDraft] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const abort = useRef<AbortController | null>(null);

  const save = (next: Thread) => {
    sessionStorage.setItem(storageKey(agentId), JSON.stringify(next));
    setThread(next);
  };

  const send = async (event: FormEvent) => {
    event.preventDefault();
    const text = draft.trim();
    if (!text || busy) return;
    const userMessage: ChatMessage = { id: crypto.randomUUID(), role: "user", content: text };
    let items: TranscriptItem[] = [...thread.items, { kind: "text", id: userMessage.id, role: "user", text }];
    const messages = [...thread.messages, userMessage];
    setThread({ ...thread, messages, items });
    setDraft("");
    setBusy(true);
    setError(undefined);
    const controller = new AbortController();
    abort.current = controller;
    try {
      const response = await openStream("POST", `/agui?agent=${encodeURIComponent(agentId)}`, {
        signal: controller.signal,
        body: {
          threadId: thread.threadId,
          runId: crypto.randomUUID(),
          messages,
          tools: [],
          context: [],
          state: {},
          forwardedProps: {},
        },
      });
      await readSse(response, (frame) => {
        items = applyEvent(items, JSON.parse(frame.data) as AguiEvent);
        setThread((current) => ({ ...current, items }));
      });
      const replies = items
        .filter((item) => item.kind === "text" && item.role !== "user")
        .filter((item) => !thread.items.some((old) => old.id === item.id));
      const reply = replies.map((item) => (item.kind === "text" ? item.text : "")).join("\n");
      save({
        threadId: thread.threadId,
        messages: reply ? [...messages, { id: crypto.randomUUID(), role: "assistant", content: reply }] : messages,
        items: items.filter((item) => item.kind !== "end" || item.error),
      });
    } catch (failure) {
      if (!controller.signal.aborted) setError(failure);
      save({ threadId: thread.threadId, messages, items });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="chat-heading" className="chat">
      <div className="toolbar">
        <h2 id="chat-heading">Chat with {agentName}</h2>
        <button
          type="button"
          className="ghost small"
          onClick={() => {
            abort.current?.abort();
            save({ threadId: crypto.randomUUID(), messages: [], items: [] });
          }}
        >
          New thread
        </button>
      </div>
      <Transcript items={thread.items} agentName={agentName} />
      {busy && <p className="muted">{agentName} is answering…</p>}
      <ErrorLine error={error} />
      <form onSubmit={send} className="chat-form">
        <label htmlFor="chat-message" className="visually-hidden">
          Message
        </label>
        <textarea
          id="chat-message"
          rows={2}
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === "Enter" && !event.shiftKey) {
              event.preventDefault();
              event.currentTarget.form?.requestSubmit();
            }
          }}
        />
        <button type="submit" className="primary" disabled={busy}>
          Send
        </button>
      </form>
    </section>
  );
}
