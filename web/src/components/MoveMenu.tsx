// The menu a card's Move button opens: the statuses, named as the columns are, so a card moves without a mouse. One
// card at a time has it (the cards themselves carry only the button, so a board of a thousand stays light). It is a
// popover (the top layer: no column or card clips it), placed by its button; arrows, Home and End move through it,
// Enter picks, Esc or a click elsewhere closes it and the focus goes back to the button.
import { type KeyboardEvent, useEffect, useRef } from "react";
import { type IssueStatus, STATUSES } from "../api-types.ts";

export function MoveMenu(props: {
  /** The id of the Move button that opened it. */
  anchorId: string;
  current: IssueStatus;
  onMove: (status: IssueStatus) => void;
  onClose: () => void;
}) {
  const menu = useRef<HTMLDivElement>(null);
  const onClose = useRef(props.onClose);
  onClose.current = props.onClose;
  /** Set by a pick, which closes the menu itself (its card may move to another column meanwhile). */
  const picked = useRef(false);

  useEffect(() => {
    const list = menu.current!;
    const button = document.getElementById(props.anchorId);
    if (!button) return;
    const anchor = button.getBoundingClientRect();
    list.showPopover();
    const below = anchor.bottom + 4 + list.offsetHeight <= window.innerHeight;
    list.style.left = `${Math.max(8, Math.min(anchor.right - list.offsetWidth, window.innerWidth - list.offsetWidth - 8))}px`;
    list.style.top = `${below ? anchor.bottom + 4 : Math.max(8, anchor.top - list.offsetHeight - 4)}px`;
    const items = [...list.querySelectorAll<HTMLElement>("[role=menuitem]")];
    (items.find((item) => item.getAttribute("aria-disabled") !== "true") ?? items[0])?.focus();
    const closed = (event: Event) => {
      if ((event as ToggleEvent).newState !== "closed" || picked.current) return;
      // Closed by Esc or a pick (the focus was inside): back to the button. A click elsewhere keeps its focus.
      const inside = list.contains(document.activeElement) || document.activeElement === document.body;
      onClose.current();
      if (inside) document.getElementById(props.anchorId)?.focus();
    };
    list.addEventListener("toggle", closed);
    return () => list.removeEventListener("toggle", closed);
  }, [props.anchorId]);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const items = [...menu.current!.querySelectorAll<HTMLElement>("[role=menuitem]")];
    const at = items.indexOf(document.activeElement as HTMLElement);
    const go = (index: number) => items[(index + items.length) % items.length]?.focus();
    if (event.key === "ArrowDown") go(at + 1);
    else if (event.key === "ArrowUp") go(at - 1);
    else if (event.key === "Home") go(0);
    else if (event.key === "End") go(items.length - 1);
    else if (event.key === "Tab") menu.current?.hidePopover();
    else return;
    event.preventDefault();
  };

  const pick = (status: IssueStatus) => {
    picked.current = true;
    menu.current?.hidePopover();
    onClose.current();
    // A move hands the focus to the moved card; picking where it already is gives it back to the button.
    if (status !== props.current) props.onMove(status);
    else document.getElementById(props.anchorId)?.focus();
  };

  return (
    <div ref={menu} role="menu" aria-label="Move to" popover="auto" className="move-menu" onKeyDown={onKeyDown}>
      {STATUSES.map(([status, title]) => (
        <button
          key={status}
          type="button"
          role="menuitem"
          tabIndex={-1}
          aria-disabled={status === props.current}
          onClick={() => pick(status)}
        >
          {title}
          {status === props.current && <span aria-hidden="true"> ✓</span>}
        </button>
      ))}
    </div>
  );
}
