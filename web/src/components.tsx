// Small pieces every page uses, and the one error pattern: a form's messages next to its fields (fieldError, with
// formError for the rest), an action's failure on one line (ErrorLine), a failed load as an alert with Retry.
import { type InputHTMLAttributes, type ReactNode, type TextareaHTMLAttributes, useEffect, useId, useRef } from "react";
import { ApiError } from "./api.ts";
import { Link } from "./router.tsx";
import type { Resource } from "./use-resource.ts";

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
    return rest.map(([, message]) => message).join("; ");
  }
  return error instanceof Error ? error.message : String(error);
}

/** What a field's control carries: the label's target, its hint and message, and whether it is invalid. */
export interface ControlProps {
  id: string;
  "aria-describedby": string | undefined;
  "aria-invalid": boolean;
}

interface FieldText {
  label: string;
  error?: string | undefined;
  hint?: string | undefined;
}

export function Field(props: FieldText & { children: (control: ControlProps) => ReactNode }) {
  const id = useId();
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const describedBy = [props.error ? errorId : "", props.hint ? hintId : ""].filter(Boolean).join(" ") || undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      {props.children({ id, "aria-describedby": describedBy, "aria-invalid": Boolean(props.error) })}
      {props.hint && (
        <span className="hint" id={hintId}>
          {props.hint}
        </span>
      )}
      {props.error && (
        <span className="field-error" id={errorId}>
          {props.error}
        </span>
      )}
    </div>
  );
}

/** A labelled one-line text field; the rest of its props go to the <input>. */
export function InputField({ label, error, hint, ...input }: FieldText & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <Field label={label} error={error} hint={hint}>
      {(control) => <input {...input} {...control} />}
    </Field>
  );
}

/** A labelled multi-line text field; the rest of its props go to the <textarea>. */
export function TextAreaField({
  label,
  error,
  hint,
  ...area
}: FieldText & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  return (
    <Field label={label} error={error} hint={hint}>
      {(control) => <textarea {...area} {...control} />}
    </Field>
  );
}

/** A form's submit button and Cancel: Cancel first in a dialog, last (left-aligned) in a form edited in place. */
export function FormActions(props: { submit: string; onCancel: () => void; busy?: boolean; inPlace?: boolean }) {
  const submit = (
    <button type="submit" className="primary" disabled={props.busy}>
      {props.submit}
    </button>
  );
  const cancel = (
    <button type="button" onClick={props.onCancel}>
      Cancel
    </button>
  );
  return props.inPlace ? (
    <div className="actions left">
      {submit}
      {cancel}
    </div>
  ) : (
    <div className="actions">
      {cancel}
      {submit}
    </div>
  );
}

/** A <select>'s options: each a value and the words shown for it. */
export function Options({ of }: { of: readonly (readonly [string, string])[] }) {
  return of.map(([value, title]) => (
    <option key={value} value={value}>
      {title}
    </option>
  ));
}

/** A table under its column heads; with `actions`, a last column for each row's buttons, named for screen readers. */
export function Table(props: {
  columns: string[];
  actions?: boolean;
  className?: string;
  /** The table's accessible name, when the heading above it does not say enough. */
  label?: string;
  children: ReactNode;
}) {
  return (
    <div className="table-wrap">
      <table className={props.className} aria-label={props.label}>
        <thead>
          <tr>
            {props.columns.map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
            {props.actions && (
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}

/** A modal dialog (the native <dialog>): Esc closes it, focus goes into it and back. */
export function Dialog(props: { title: string; onClose: () => void; children: ReactNode; className?: string }) {
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
      if (opener?.isConnected) opener.focus();
    };
  }, []);
  return (
    <dialog ref={ref} aria-labelledby={titleId} className={`dialog ${props.className ?? ""}`}>
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
  return (
    <p className="muted" aria-busy="true">
      Loading…
    </p>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}

/** A load that failed: what failed, in words, and a Retry button that asks again. */
export function LoadFailed({ error, onRetry, what }: { error: unknown; onRetry: () => void; what: string }) {
  const message = error instanceof Error ? error.message : String(error);
  return (
    <div className="load-failed" role="alert">
      <p>
        Could not load {what}: {message}
      </p>
      <button type="button" onClick={onRetry}>
        Retry
      </button>
    </div>
  );
}

/**
 * What a resource holds once loaded; until then "Loading…", and after a failure an alert with Retry (never loading
 * forever). Later failures of a reload keep the data on screen and add the alert above it.
 */
export function Loaded<T>(props: { resource: Resource<T>; what: string; children: (data: T) => ReactNode }) {
  const { data, error, reload } = props.resource;
  if (data === undefined) return error ? <LoadFailed error={error} onRetry={reload} what={props.what} /> : <Loading />;
  return (
    <>
      {error && <LoadFailed error={error} onRetry={reload} what={props.what} />}
      {props.children(data)}
    </>
  );
}

/** A page that is not there: said plainly, with a way home. */
export function NotFound({ home, what = "Page" }: { home: string; what?: string }) {
  return (
    <main className="page not-found">
      <h1>{what} not found</h1>
      <p className="muted">There is nothing at this address. It may have been deleted, or the link may be wrong.</p>
      <Link to={home}>Go to the board</Link>
    </main>
  );
}
