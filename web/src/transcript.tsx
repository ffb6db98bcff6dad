// AG-UI events (official dialect) folded into a chat transcript: text messages, tool calls with their arguments
// and results, approvals, questions, and how the run ended. Task runs and agent chats render through the same pieces: text as
// sanitised Markdown, tool arguments and results as collapsible, pretty-printed JSON.
import type { Approval, Question } from "./api-types.ts";
import { Markdown } from "./markdown.tsx";

export type TranscriptItem =
  | { kind: "text"; id: string; role: string; text: string }
  | { kind: "tool"; id: string; name: string; args: string; result?: string }
  | { kind: "approval"; id: string; approval: Approval; decided: boolean }
  | { kind: "question"; id: string; question: Question }
  | { kind: "end"; id: string; error?: string };

export interface AguiEvent {
  type: string;
  [field: string]: unknown;
}

export function applyEvent(items: TranscriptItem[], event: AguiEvent): TranscriptItem[] {
  const str = (field: string) => (typeof event[field] === "string" ? (event[field] as string) : "");
  switch (event.type) {
    case "TEXT_MESSAGE_START":
      return [...items, { kind: "text", id: str("messageId"), role: str("role") || "assistant", text: "" }];
    case "TEXT_MESSAGE_CONTENT":
    case "TEXT_MESSAGE_CHUNK": {
      const id = str("messageId");
      if (!items.some((item) => item.kind === "text" && item.id === id))
        items = [...items, { kind: "text", id, role: "assistant", text: "" }];
      return items.map((item) =>
        item.kind === "text" && item.id === id ? { ...item, text: item.text + str("delta") } : item,
      );
    }
    case "TOOL_CALL_START":
      return [...items, { kind: "tool", id: str("toolCallId"), name: str("toolCallName"), args: "" }];
    case "TOOL_CALL_ARGS":
      return items.map((item) =>
        item.kind === "tool" && item.id === str("toolCallId") ? { ...item, args: item.args + str("delta") } : item,
      );
    case "TOOL_CALL_RESULT":
      return items.map((item) =>
        item.kind === "tool" && item.id === str("toolCallId") ? { ...item, result: str("content") } : item,
      );
    case "CUSTOM": {
      if (event.name === "question_asked" || event.name === "question_answered") {
        const question = event.value as Question | undefined;
        if (!question?.id) return items;
        if (event.name === "question_asked") return [...items, { kind: "question", id: question.id, question }];
        return items.map((item) =>
          item.kind === "question" && item.id === question.id ? { ...item, question } : item,
        );
      }
      const approval = event.value as Approval | undefined;
      if (!approval?.id) return items;
      if (event.name === "approval_requested")
        return [...items, { kind: "approval", id: approval.id, approval, decided: false }];
      if (event.name === "approval_decided")
        return items.map((item) =>
          item.kind === "approval" && item.id === approval.id ? { ...item, approval, decided: true } : item,
        );
      return items;
    }
    case "RUN_FINISHED":
      return [...items, { kind: "end", id: `end-${items.length}` }];
    case "RUN_ERROR":
      return [...items, { kind: "end", id: `end-${items.length}`, error: str("message") || "The run failed" }];
    default:
      return items;
  }
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

export function Transcript({
  items,
  agentName = "Agent",
  renderApproval,
  renderQuestion,
}: {
  items: TranscriptItem[];
  agentName?: string;
  renderApproval?: ((approval: Approval, decided: boolean) => React.ReactNode) | undefined;
  renderQuestion?: ((question: Question) => React.ReactNode) | undefined;
}) {
  return (
    <ol className="transcript" aria-label="Transcript">
      {items.map((item) => {
        switch (item.kind) {
          case "text":
            return (
              <li key={`t-${item.id}`} className={`bubble ${item.role}`}>
                <span className="who">{item.role === "user" ? "You" : agentName}</span>
                <Markdown text={item.text} />
              </li>
            );
          case "tool":
            return (
              <li key={`c-${item.id}`} className="tool-call">
                <details>
                  <summary>
                    Called <code>{item.name}</code>
                    {item.result === undefined && <span className="muted"> (waiting for its result)</span>}
                  </summary>
                  <pre>{prettyJson(item.args)}</pre>
                </details>
                {item.result !== undefined && (
                  <details className="tool-result">
                    <summary>
                      Result of <code>{item.name}</code>
                    </summary>
                    <pre>{prettyJson(item.result)}</pre>
                  </details>
                )}
              </li>
            );
          case "approval":
            return (
              <li key={`a-${item.id}`} className="approval-item">
                {renderApproval ? (
                  renderApproval(item.approval, item.decided)
                ) : (
                  <span>
                    Approval for <code>{item.approval.tool_name}</code>: {item.approval.status}
                  </span>
                )}
              </li>
            );
          case "question":
            return (
              <li key={`q-${item.id}`} className="question-item">
                {renderQuestion ? (
                  renderQuestion(item.question)
                ) : (
                  <span>
                    Question: {item.question.question} ({item.question.status})
                  </span>
                )}
              </li>
            );
          case "end":
            return (
              <li key={item.id} className={item.error ? "run-end error" : "run-end"}>
                {item.error ? `Run failed: ${item.error}` : "Run finished"}
              </li>
            );
          default:
            return null;
        }
      })}
    </ol>
  );
}
