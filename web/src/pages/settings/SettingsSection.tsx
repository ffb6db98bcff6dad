// One settings section: a region named by its heading, and beside the heading the section's New button, if any.
import { type ReactNode, useId } from "react";

export function SettingsSection(props: { title: string; newLabel?: string; onNew?: () => void; children: ReactNode }) {
  const headingId = useId();
  const heading = <h2 id={headingId}>{props.title}</h2>;
  return (
    <section aria-labelledby={headingId}>
      {props.newLabel ? (
        <div className="toolbar">
          {heading}
          <button type="button" className="primary" onClick={props.onNew}>
            {props.newLabel}
          </button>
        </div>
      ) : (
        heading
      )}
      {props.children}
    </section>
  );
}
