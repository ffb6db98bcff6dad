// The one rule of `approval_required`: a call of a gated tool of an agent never runs without a person's yes, wherever
// the agent runs. The runtime asks this gate before every tool call of a platform agent. In the agent's own task run
// the call waits for the approval a member decides (work/approvals.ts); anywhere else (a chat through /agui, another
// agent asking it through ask_<agent>) nobody is there to decide, so the call is refused with a result the model can
// pass on.
import type { Agent } from "../platform/agents/service.ts";
import type { ToolCallRecord } from "./model.ts";
import type { ToolGate } from "./run-types.ts";

/** A person's decision stored for one tool call of the agent's task run; undefined while none was asked for. */
export type ApprovalDecision = { status: string; comment: string | null };

/** Looks up the decision for a call of the run (the task run's approvals). */
export type ApprovalDecisions = (call: ToolCallRecord) => Promise<ApprovalDecision | undefined>;

/**
 * Whether the agent needs a person's approval to call `toolName`. A stored value that is not a list of names (it is
 * validated when saved, so only an older or hand-edited row) gates every tool: when unsure, ask.
 */
export function needsApproval(agent: Agent, toolName: string): boolean {
  const required = agent.runtime_config.approval_required;
  if (required === undefined || required === null) return false;
  if (!Array.isArray(required)) return true;
  return required.includes("*") || required.includes(toolName);
}

/**
 * The gate of one run of `agent`: with `decisions` (its own task run) gated calls are held until decided, then run
 * or answered with the denial; without, they are refused. Undefined when the agent gates nothing.
 */
export function approvalGate(agent: Agent, decisions?: ApprovalDecisions): ToolGate | undefined {
  const required = agent.runtime_config.approval_required;
  if (required === undefined || required === null || (Array.isArray(required) && required.length === 0)) {
    return undefined;
  }
  return async (call) => {
    if (!needsApproval(agent, call.name)) return { action: "run" };
    if (!decisions) return { action: "answer", content: refusal(agent, call.name) };
    const decision = await decisions(call);
    if (!decision || decision.status === "pending") return { action: "hold" };
    if (decision.status === "approved") return { action: "run" };
    const comment = decision.comment ? ` Their comment: ${decision.comment}` : "";
    return {
      action: "answer",
      content: `Denied: the person reviewing this call to ${call.name} did not approve it, so it did not run.${comment}`,
    };
  };
}

const refusal = (agent: Agent, toolName: string) =>
  `Not run: the tool ${toolName} of the agent "${agent.name}" needs a person's approval, which can only be given ` +
  `while the agent works on an issue. Assign the agent an issue to run it; a member then approves the call.`;
