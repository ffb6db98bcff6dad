// Copy for a secret shown once: the clipboard API where the page may use it, else the selected text copied the old
// way; the button says whether it worked.
import { useState } from "react";

async function copyText(text: string): Promise<void> {
  if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.className = "visually-hidden";
  document.body.append(area);
  area.select();
  const copied = document.execCommand("copy");
  area.remove();
  if (!copied) throw new Error("copy refused");
}

export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  return (
    <>
      <button
        type="button"
        className="small"
        onClick={() =>
          copyText(text).then(
            () => setState("copied"),
            () => setState("failed"),
          )
        }
      >
        {label}
      </button>
      <span aria-live="polite" className="muted copy-status">
        {state === "copied" ? "Copied" : state === "failed" ? "Copy failed: select the text and copy it" : ""}
      </span>
    </>
  );
}
