// The list view of the board's issues: one row each, the same filters.
import { type Issue, priorityTitle, statusTitle } from "../api-types.ts";
import { DateOnly } from "../components/Time.tsx";
import { Table } from "../components.tsx";
import { Link } from "../router.tsx";
import type { WorkspaceData } from "../workspace.tsx";
import { Assignee, Labels } from "./Card.tsx";
import type { WorkState } from "./work-states.ts";

export function IssueTable(props: { issues: Issue[]; ws: WorkspaceData; work: Map<string, WorkState> | undefined }) {
  const { ws } = props;
  return (
    <Table columns={["Issue", "Status", "Priority", "Labels", "Due", "Assignee"]} className="issue-table">
      {props.issues.map((issue) => {
        const work = props.work?.get(issue.id);
        return (
          <tr key={issue.id}>
            <td>
              <Link to={`/w/${ws.id}/issues/${issue.id}`} className="card-link">
                {/* The space inside the identifier, as on a card: a text node fewer a row. */}
                <span className="identifier">{`${issue.identifier} `}</span>
                {issue.title}
              </Link>
              {work && <span className={`work-state w-${work.status}`}>{work.text}</span>}
            </td>
            <td>{statusTitle(issue.status)}</td>
            <td>{priorityTitle(issue.priority)}</td>
            <td className="meta-cell">{issue.label_ids.length > 0 && <Labels ids={issue.label_ids} ws={ws} />}</td>
            <td>{issue.due_date && <DateOnly day={issue.due_date} />}</td>
            {/* "Unassigned" is the cell's own text: an element fewer a row, and a thousand rows are taken down each
                time the board comes back. */}
            {issue.assignee_id ? (
              <td>
                <Assignee issue={issue} ws={ws} />
              </td>
            ) : (
              <td className="muted">Unassigned</td>
            )}
          </tr>
        );
      })}
    </Table>
  );
}
