// A card's Move button: a menu of the statuses (named as the columns are), so a card moves without a mouse. The
// menu is a popover (the top layer: no column or card clips it), placed under the button; arrows, Home and End move
// through it, Enter picks, Esc or a click elsewhere closes it and focus goes back to the button.
import { type KeyboardEvent, useEffect, useRef, useState } from "react";
import { type IssueStatus, STATUSES } from "../api-types.ts";

export function MoveMenu(props: {
  current: IssueStatus;
  /** Names the card in the button's description ("ISS-4 Fix the login"). */
  describedBy: string;
  onMove: (status: IssueStatus) => void;
}) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const list = menu.current;
    if (!open || !list) return;
    const anchor = button.current!.getBoundingClientRect();
    list.showPopover();
    const width = list.offsetWidth;
    const height = list.offsetHeight;
    const below = anchor.bottom + 4 + height <= window.innerHeight;
    list.style.left = `${Math.max(8, Math.min(anchor.left, window.innerWidth - width - 8))}px`;
    list.style.top = `${below ? anchor.bottom + 4 : Math.max(8, anchor.top - height - 4)}px`;
    const items = [...list.querySelectorAll<HTMLElement>("[role=menuitem]")];
    (items.find((item) => item.dataset.status !== props.current) ?? items[0])?.focus();
    const closed = (event: Event) => {
      if ((event as ToggleEvent).newState !== "closed") return;
      setOpen(false);
      // Closed by Esc or a pick (focus was inside): back to the button. A click elsewhere keeps its own focus.
      if (list.contains(document.activeElement) || document.activeElement === document.body) button.current?.focus();
    };
    list.addEventListener("toggle", closed);
    return () => list.removeEventListener("toggle", closed);
  }, [open, props.current]);

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
    menu.current?.hidePopover();
    if (status !== props.current) props.onMove(status);
  };

  return (
    <>
      <button
        ref={button}
        type="button"
        className="ghost small move"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-describedby={props.describedBy}
        onClick={() => setOpen(!open)}
        onKeyDown={(event) => {
          if (event.key === "ArrowDown" || event.key === "ArrowUp") {
            event.preventDefault();
            setOpen(true);
          }
        }}
      >
        Move
      </button>
      {open && (
        <div ref={menu} role="menu" aria-label="Move to" popover="auto" className="move-menu" onKeyDown={onKeyDown}>
          {STATUSES.map(([status, title]) => (
            <button
              key={status}
              type="button"
              role="menuitem"
              data-status={status}
              tabIndex={-1}
              aria-disabled={status === props.current}
              onClick={() => pick(status)}
            >
              {title}
              {status === props.current && <span aria-hidden="true"> ✓</span>}
            </button>
          ))}
        </div>
      )}
    </>
  );
}
