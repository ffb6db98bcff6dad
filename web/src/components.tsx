// Small pieces every page uses: error lines, labelled fields, dialogs, loading and empty states.
import { type ReactNode, useEffect, useId, useRef } from "react";
import { ApiError } from "./api.ts";

export function ErrorLine({ error }: { error: unknown }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  return (
    <p className="error" role="alert">
      {message}
    </p>
  );
}

/** The 422 message of one field, else nothing. */
export function fieldError(error: unknown, ...fields: string[]): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  for (const field of fields) if (error.fields[field]) return error.fields[field];
  return undefined;
}

/** An error not tied to one of the form's fields (a 409, a 500, a field the form does not show). */
export function formError(error: unknown, shownFields: string[]): string | undefined {
  if (!error) return undefined;
  if (error instanceof ApiError && error.status === 422) {
    const rest = Object.entries(error.fields).filter(([field]) => !shownFields.includes(field));
    if (rest.length === 0) return undefined;
    return rest.map(([field, message]) => (field === "_" ? message : `${field}: ${message}`)).join("; ");
  }
  return error instanceof Error ? error.message : String(error);
}

export function Field(props: {
  label: string;
  error?: string | undefined;
  hint?: string;
  children: (id: string, describedBy: string | undefined, invalid: boolean) => ReactNode;
}) {
  const id = useId();
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const describedBy = [props.error ? errorId : "", props.hint ? hintId : ""].filter(Boolean).join(" ") || undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      {props.children(id, describedBy, Boolean(props.error))}
      {props.hint && (
        <span className="hint" id={hintId}>
          {props.hint}
        </span>
      )}
      {props.error && (
        <span className="field-error" id={errorId} role="alert">
          {props.error}
        </span>
      )}
    </div>
  );
}

/** A modal dialog (the native <dialog>): Esc closes it, focus goes into it and back. */
export function Dialog(props: { title: string; onClose: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  // The latest onClose, without reopening the dialog (and moving focus) each time the page re-renders.
  const onClose = useRef(props.onClose);
  onClose.current = props.onClose;
  useEffect(() => {
    const dialog = ref.current!;
    const opener = document.activeElement as HTMLElement | null;
    dialog.showModal();
    const cancel = (event: Event) => {
      event.preventDefault();
      onClose.current();
    };
    dialog.addEventListener("cancel", cancel);
    return () => {
      dialog.removeEventListener("cancel", cancel);
      dialog.close();
      opener?.focus?.();
    };
  }, []);
  return (
    <dialog ref={ref} aria-labelledby={titleId} className="dialog">
      <div className="dialog-head">
        <h2 id={titleId}>{props.title}</h2>
        <button type="button" className="ghost" onClick={props.onClose} aria-label="Close">
          ×
        </button>
      </div>
      {props.children}
    </dialog>
  );
}

export function Loading() {
  return <p className="muted">Loading…</p>;
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}

export function timeAgo(iso: string): string {
  const at = new Date(`${iso.replace(/Z?$/, "")}Z`).getTime();
  const seconds = Math.round((Date.now() - at) / 1000);
  if (seconds < 60) return "just now";
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.round(seconds / 3600)} h ago`;
  return new Date(at).toLocaleDateString();
}
