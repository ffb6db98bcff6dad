// The board view: one region per status, cards dropped on a column move there.
import { useMemo, useState } from "react";
import { type Issue, type IssueStatus, STATUSES } from "../api-types.ts";
import type { WorkspaceData } from "../workspace.tsx";
import { Card, ISSUE_DRAG_TYPE } from "./Card.tsx";
import type { WorkState } from "./work-states.ts";

export function Columns(props: {
  issues: Issue[];
  ws: WorkspaceData;
  work: Map<string, WorkState> | undefined;
  onMove: (issueId: string, status: IssueStatus, fromKeyboard: boolean) => void;
}) {
  const [over, setOver] = useState<string | null>(null);
  const [moving, setMoving] = useState<string | null>(null);
  const byStatus = useMemo(() => {
    const groups = new Map<string, Issue[]>(STATUSES.map(([status]) => [status, []]));
    for (const issue of props.issues) groups.get(issue.status)?.push(issue);
    return groups;
  }, [props.issues]);
  return (
    <div className="columns">
      {STATUSES.map(([status, title]) => {
        const cards = byStatus.get(status) ?? [];
        return (
          <section
            key={status}
            className={`column${over === status ? " drop" : ""}`}
            aria-label={title}
            onDragOver={(event) => {
              event.preventDefault();
              event.dataTransfer.dropEffect = "move";
              setOver(status);
            }}
            onDragLeave={() => setOver((current) => (current === status ? null : current))}
            onDrop={(event) => {
              event.preventDefault();
              setOver(null);
              const issueId = event.dataTransfer.getData(ISSUE_DRAG_TYPE);
              if (issueId) props.onMove(issueId, status, false);
            }}
          >
            <h2>
              {title} <span className="count">{cards.length}</span>
            </h2>
            <ul>
              {cards.map((issue) => (
                <li key={issue.id}>
                  <Card
                    issue={issue}
                    ws={props.ws}
                    work={props.work?.get(issue.id)}
                    moving={moving === issue.id}
                    onMoving={setMoving}
                    onMove={props.onMove}
                  />
                </li>
              ))}
            </ul>
          </section>
        );
      })}
    </div>
  );
}
