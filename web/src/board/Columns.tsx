// The board view: one region per status, cards dropped on a column move there. The cards' own events (following
// their link, their Move button, dragging them) are handled here, once for all of them.
import { type DragEvent, type KeyboardEvent, type MouseEvent, useMemo, useState } from "react";
import { type Issue, type IssueStatus, STATUSES } from "../api-types.ts";
import { navigate } from "../router.tsx";
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
  const events = cardEvents(moving, setMoving);
  return (
    <div className="columns" {...events}>
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
            {cards.map((issue) => (
              <Card
                key={issue.id}
                issue={issue}
                ws={props.ws}
                work={props.work?.get(issue.id)}
                moving={moving === issue.id}
                onMoving={setMoving}
                onMove={props.onMove}
              />
            ))}
          </section>
        );
      })}
    </div>
  );
}

/** The card (its issue id, the last part of its link) an event happened in, and the element it hit. */
function cardOf(event: { target: EventTarget }): { issueId: string; hit: HTMLElement } | null {
  const hit = event.target as HTMLElement;
  const href = hit.closest?.("article.issue-card")?.querySelector("a.card-link")?.getAttribute("href");
  return href ? { issueId: href.slice(href.lastIndexOf("/") + 1), hit } : null;
}

const onMoveButton = (hit: HTMLElement) => hit.closest(".move") !== null;

function cardEvents(moving: string | null, setMoving: (issueId: string | null) => void) {
  return {
    onClick(event: MouseEvent<HTMLElement>) {
      const card = cardOf(event);
      if (!card) return;
      if (onMoveButton(card.hit)) {
        setMoving(moving === card.issueId ? null : card.issueId);
        return;
      }
      const link = card.hit.closest<HTMLAnchorElement>("a.card-link");
      if (!link || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      event.preventDefault();
      navigate(link.getAttribute("href")!);
    },
    onKeyDown(event: KeyboardEvent<HTMLElement>) {
      const card = cardOf(event);
      if (!card || !onMoveButton(card.hit) || !["Enter", " ", "ArrowDown", "ArrowUp"].includes(event.key)) return;
      event.preventDefault();
      const toggles = event.key === "Enter" || event.key === " ";
      setMoving(toggles && moving === card.issueId ? null : card.issueId);
    },
    onDragStart(event: DragEvent<HTMLElement>) {
      const card = cardOf(event);
      if (!card) return;
      event.dataTransfer.setData(ISSUE_DRAG_TYPE, card.issueId);
      event.dataTransfer.effectAllowed = "move";
    },
  };
}
