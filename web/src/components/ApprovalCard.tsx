// A tool call waiting for a person: the tool, its arguments, and Approve / Deny with an optional comment.
import { useState } from "react";
import { api } from "../api.ts";
import type { Approval } from "../api-types.ts";
import { ErrorLine } from "../components.tsx";

export function ApprovalCard(props: { workspaceId: string; approval: Approval; onDecided?: () => void }) {
  const { approval } = props;
  const [comment, setComment] = useState("");
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const decide = async (decision: "approve" | "deny") => {
    setBusy(true);
    setError(undefined);
    try {
      await api.post(`workspaces/${props.workspaceId}/approvals/${approval.id}`, {
        decision,
        ...(comment && { comment }),
      });
      props.onDecided?.();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return (
    <fieldset className="approval">
      <legend>Approval for {approval.tool_name}</legend>
      <p>
        The agent wants to call <code>{approval.tool_name}</code> with:
      </p>
      <pre>{JSON.stringify(approval.arguments, null, 2)}</pre>
      {approval.status === "pending" ? (
        <>
          <input
            aria-label="Decision comment"
            placeholder="Comment for the agent (optional)"
            value={comment}
            onChange={(event) => setComment(event.target.value)}
          />
          <div className="actions left">
            <button type="button" className="primary" disabled={busy} onClick={() => decide("approve")}>
              Approve
            </button>
            <button type="button" className="danger" disabled={busy} onClick={() => decide("deny")}>
              Deny
            </button>
          </div>
        </>
      ) : (
        <p className="muted">{approval.status === "approved" ? "Approved" : "Denied"}</p>
      )}
      <ErrorLine error={error} />
    </fieldset>
  );
}
