// An agent's status badge, in words that hold (see agentStatusTitle).
import { agentStatusTitle, type AgentStatus as Status } from "../api-types.ts";

export function AgentStatus({ status }: { status: Status }) {
  const shown = status === "offline" ? "idle" : status;
  return <span className={`status a-${shown}`}>{agentStatusTitle(status)}</span>;
}
