// Keyboard shortcuts: which key presses are meant for a text field (or an open dialog) rather than a shortcut.

/** Is the key press meant for a text field, a menu or a dialog rather than a page shortcut? */
export function isTyping(target: EventTarget | null): boolean {
  const element = target as HTMLElement | null;
  if (element?.closest?.("input, textarea, select, [contenteditable=true], dialog, [role=menu]")) return true;
  return document.querySelector("dialog[open]") !== null;
}
