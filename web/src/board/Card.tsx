// One card: a link named by the issue's identifier and title, its priority, labels, due date, assignee and work
// state, and the Move menu. Dragged as a whole to another column. Kept to few elements (a wrapping flex row, no
// wrappers, not even a list item: the card itself skips layout while off screen): the board renders a thousand at once.
import { memo } from "react";
import { type Issue, type IssueStatus, priorityTitle } from "../api-types.ts";
import { MoveMenu } from "../components/MoveMenu.tsx";
import { DateOnly } from "../components/Time.tsx";
import { actorName, type WorkspaceData } from "../workspace.tsx";
import type { WorkState } from "./work-states.ts";

export const ISSUE_DRAG_TYPE = "application/x-issue-id";

/**
 * Memoised: a change to one issue re-renders one card, not the thousand beside it. Its link, Move button and drag are
 * handled by the columns (cardEvents in Columns.tsx): a card carries attributes only, no handlers of its own.
 */
export const Card = memo(function Card(props: {
  issue: Issue;
  ws: WorkspaceData;
  work: WorkState | undefined;
  /** Whether this card's Move menu is open (one card at a time). */
  moving: boolean;
  onMoving: (issueId: string | null) => void;
  onMove: (issueId: string, status: IssueStatus, fromKeyboard: boolean) => void;
}) {
  const { issue, ws, work, moving } = props;
  /** The menu's anchor: only while it is open (a thousand strings fewer to build). */
  const moveId = moving ? `move-${issue.id}` : undefined;
  return (
    <article className="issue-card" aria-label={`${issue.identifier} ${issue.title}`} draggable>
      <a href={`/w/${ws.id}/issues/${issue.id}`} className="card-link">
        {/* The space inside the identifier, the title bare beside it: a node and an element fewer per card. */}
        <span className="identifier">{`${issue.identifier} `}</span>
        {issue.title}
      </a>
      {/* No empty box when there is nothing to say: a thousand cards, a thousand elements fewer. */}
      {(work || issue.priority !== "none" || issue.label_ids.length > 0 || issue.due_date || issue.assignee_id) && (
        <span className="meta">
          {work && <span className={`work-state w-${work.status}`}>{work.text}</span>}
          {issue.priority !== "none" && (
            <span className={`priority p-${issue.priority}`}>{priorityTitle(issue.priority)}</span>
          )}
          <Labels ids={issue.label_ids} ws={ws} />
          {issue.due_date && (
            <span className="due">
              Due <DateOnly day={issue.due_date} />
            </span>
          )}
          {issue.assignee_id && <Assignee issue={issue} ws={ws} />}
        </span>
      )}
      {/* biome-ignore lint/a11y/useSemanticElements: a <button> on each of a thousand cards costs ~100 ms more to
          insert (Chromium's bookkeeping of form controls, measured with bench/web.ts); this acts as one. Its id (the
          menu's anchor) and aria-expanded are there only while its menu is open: a closed menu button leaves
          aria-expanded out (WAI-ARIA menu button pattern), and a thousand attributes fewer insert faster. Its role
          cost ~6 ms of the render on a slow host and nothing measurable on a fast one (bench/board-ab.ts). */}
      <span
        role="button"
        tabIndex={0}
        id={moveId}
        className="move"
        aria-haspopup="menu"
        aria-expanded={moving || undefined}
      >
        Move
      </span>
      {moving && (
        <MoveMenu
          anchorId={moveId!}
          current={issue.status}
          onMove={(status) => props.onMove(issue.id, status, true)}
          onClose={() => props.onMoving(null)}
        />
      )}
    </article>
  );
});

export function Labels({ ids, ws }: { ids: string[]; ws: WorkspaceData }) {
  return ids.map((labelId) => {
    const label = ws.labels.find((each) => each.id === labelId);
    return label ? (
      <span key={labelId} className="label">
        <span className="dot" style={{ background: label.color }} aria-hidden="true" />
        {label.name}
      </span>
    ) : null;
  });
}

export function Assignee({ issue, ws }: { issue: Issue; ws: WorkspaceData }) {
  const name = actorName(ws, issue.assignee_type, issue.assignee_id);
  return issue.assignee_type === "agent" ? (
    <span className="assignee agent">
      <span aria-hidden="true">⚙ </span>
      {name} <span className="tag">agent</span>
    </span>
  ) : (
    <span className="assignee">{name}</span>
  );
}
