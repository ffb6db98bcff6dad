// Why work waits for money (spec control.md §2): a task waiting for budget, and an agent blocked by one, say so in
// plain words, with the way out.
import { Link } from "../router.tsx";
import { usd } from "./money.ts";

/** On a task with `waiting_for: "budget"`. */
export function WaitingForBudget({ workspaceId }: { workspaceId: string }) {
  return (
    <p className="waiting-budget">
      Waiting: the monthly budget is spent. The task runs on its own once the budget is raised or a new month begins.{" "}
      <Link to={`/w/${workspaceId}/settings/usage`}>See usage</Link>
    </p>
  );
}

/**
 * On a `blocked` agent: which budget stops it, its own (when its spend has reached it) or else the workspace's.
 * `spent` is the agent's spend this month, when known.
 */
export function AgentBlockedByBudget(props: { workspaceId: string; budget: number | null; spent: number | undefined }) {
  const which =
    props.budget === null
      ? "the workspace's monthly budget is spent."
      : props.spent === undefined
        ? "the monthly budget is spent."
        : props.spent >= props.budget
          ? `this agent's monthly budget of ${usd(props.budget)} is spent.`
          : "the workspace's monthly budget is spent.";
  return (
    <p className="waiting-budget" role="status">
      Blocked: {which} New tasks wait until the budget is raised or a new month begins.{" "}
      <Link to={`/w/${props.workspaceId}/settings/usage`}>See usage</Link>
    </p>
  );
}
