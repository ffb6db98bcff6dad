// A question an agent asked through ask_human: the question, and one button per option (a single choice answers at
// once; several are chosen, then "Answer"), or a text box and "Answer". Once answered, the answer.
import { useState } from "react";
import { api } from "../api.ts";
import type { Question } from "../api-types.ts";
import { ErrorLine } from "../components.tsx";

const shown = (answer: Question["answer"]) => (Array.isArray(answer) ? answer.join(", ") : (answer ?? ""));

export function QuestionCard(props: { workspaceId: string; question: Question; onAnswered?: () => void }) {
  const [answered, setAnswered] = useState<Question>();
  const question = answered ?? props.question;
  const [text, setText] = useState("");
  const [chosen, setChosen] = useState<string[]>([]);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const answer = async (value: string | string[]) => {
    setBusy(true);
    setError(undefined);
    try {
      setAnswered(
        await api.post<Question>(`workspaces/${props.workspaceId}/questions/${question.id}/answer`, { answer: value }),
      );
      props.onAnswered?.();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  const toggle = (option: string) =>
    setChosen((current) =>
      current.includes(option) ? current.filter((each) => each !== option) : [...current, option],
    );
  const { options } = question;
  return (
    <fieldset className="question">
      <legend>Question from the agent</legend>
      <p>{question.question}</p>
      {question.status !== "open" ? (
        <p className="muted">
          {question.status === "answered" ? `Answered: ${shown(question.answer)}` : "Withdrawn: the task was cancelled"}
        </p>
      ) : options && !question.multiple ? (
        <div className="options">
          {options.map((option) => (
            <button key={option} type="button" disabled={busy} onClick={() => answer(option)}>
              {option}
            </button>
          ))}
        </div>
      ) : options ? (
        <>
          <div className="options">
            {options.map((option) => (
              <button
                key={option}
                type="button"
                aria-pressed={chosen.includes(option)}
                disabled={busy}
                onClick={() => toggle(option)}
              >
                {option}
              </button>
            ))}
          </div>
          <div className="actions left">
            <button
              type="button"
              className="primary"
              disabled={busy || chosen.length === 0}
              onClick={() => answer(options.filter((option) => chosen.includes(option)))}
            >
              Answer
            </button>
          </div>
        </>
      ) : (
        <>
          <textarea
            aria-label="Your answer"
            placeholder="Your answer"
            maxLength={10_000}
            value={text}
            onChange={(event) => setText(event.target.value)}
          />
          <div className="actions left">
            <button
              type="button"
              className="primary"
              disabled={busy || text.trim() === ""}
              onClick={() => answer(text.trim())}
            >
              Answer
            </button>
          </div>
        </>
      )}
      <ErrorLine error={error} />
    </fieldset>
  );
}
