// Asks before something that cannot be undone: what will happen in words, the action's own button and Cancel.
// A failure is shown inside the dialog, which stays open.
import { type ReactNode, useEffect, useRef, useState } from "react";
import { Dialog, ErrorLine } from "../components.tsx";

function ConfirmDialog(props: {
  title: string;
  /** The button that does it, named as the action ("Revoke key"). */
  action: string;
  children: ReactNode;
  onConfirm: () => Promise<unknown>;
  onClose: () => void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const cancel = useRef<HTMLButtonElement>(null);
  // Cancel has the focus: Enter on a confirmation that just opened does nothing harmful.
  useEffect(() => cancel.current?.focus(), []);
  const confirm = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await props.onConfirm();
      props.onClose();
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  };
  return (
    <Dialog title={props.title} onClose={props.onClose} className="confirm">
      <div className="confirm-text">{props.children}</div>
      <ErrorLine error={error} />
      <div className="actions">
        <button ref={cancel} type="button" onClick={props.onClose}>
          Cancel
        </button>
        <button type="button" className="danger" disabled={busy} onClick={confirm}>
          {props.action}
        </button>
      </div>
    </Dialog>
  );
}

/** State for one confirmation at a time: `ask(…)` opens it, `dialog` renders it. */
export function useConfirm() {
  const [pending, setPending] = useState<{
    title: string;
    action: string;
    text: ReactNode;
    run: () => Promise<unknown>;
  } | null>(null);
  const ask = (title: string, action: string, text: ReactNode, run: () => Promise<unknown>) =>
    setPending({ title, action, text, run });
  const dialog = pending && (
    <ConfirmDialog
      title={pending.title}
      action={pending.action}
      onConfirm={pending.run}
      onClose={() => setPending(null)}
    >
      {pending.text}
    </ConfirmDialog>
  );
  return { ask, dialog };
}
