// A small history router: the address (path and query) is the state, links are real <a href> so every page has a URL
// and a reload or a shared link shows the same thing.
import { type AnchorHTMLAttributes, type MouseEvent, useMemo, useSyncExternalStore } from "react";

const listeners = new Set<() => void>();

/**
 * An address already on screen but not yet in the history entry. A replaced query (a board filter, its view) is drawn
 * first and written when the page is idle: history.replaceState right after a render of a thousand cards holds the
 * page up for 2–20 ms, and before it, ~5 ms more on the way to the screen (bench/board-ab.ts). A replaced path (a
 * redirect, say from `/` to a board) is written at once: the address bar never shows another page than the one drawn.
 */
let unwritten: Place | null = null;

function writeAddress(): void {
  if (!unwritten) return;
  history.replaceState(null, "", `${unwritten.path}${unwritten.search}`);
  unwritten = null;
}

// Back and forward leave the entry the unwritten address was meant for (registered before any subscriber's listener).
window.addEventListener("popstate", () => {
  unwritten = null;
});

/** Safari has no requestIdleCallback: there, a timer. */
const whenIdle: (task: () => void) => void =
  "requestIdleCallback" in window
    ? (task) => requestIdleCallback(task, { timeout: 200 })
    : (task) => setTimeout(task, 50);

const currentPath = () => unwritten?.path ?? location.pathname;
const currentSearch = () => unwritten?.search ?? location.search;

export function navigate(to: string, replace = false): void {
  if (`${currentPath()}${currentSearch()}` === to) return;
  const queryAt = to.indexOf("?");
  const place = queryAt === -1 ? { path: to, search: "" } : { path: to.slice(0, queryAt), search: to.slice(queryAt) };
  if (!replace) {
    writeAddress();
    history.pushState(null, "", to);
  } else if (place.path === currentPath()) {
    const scheduled = unwritten !== null;
    unwritten = place;
    if (!scheduled) whenIdle(writeAddress);
  } else {
    unwritten = null;
    history.replaceState(null, "", to);
  }
  for (const listener of listeners) listener();
}

interface Place {
  path: string;
  search: string;
}

function subscribe(onChange: () => void): () => void {
  listeners.add(onChange);
  window.addEventListener("popstate", onChange);
  return () => {
    listeners.delete(onChange);
    window.removeEventListener("popstate", onChange);
  };
}

/** The current path alone: a change of the query (a board filter, its view) does not re-render its user. */
export function usePath(): string {
  return useSyncExternalStore(subscribe, currentPath);
}

/** The current path and query, updated on navigation and on the browser's back and forward. */
export function useLocation(): Place {
  const path = usePath();
  const search = useSyncExternalStore(subscribe, currentSearch);
  return useMemo(() => ({ path, search }), [path, search]);
}

/** Replaces the query of the current address (empty values dropped), keeping the history entry. */
export function replaceQuery(params: Record<string, string>): void {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value) search.set(key, value);
  const text = search.toString();
  navigate(`${currentPath()}${text ? `?${text}` : ""}`, true);
}

export function Link(props: AnchorHTMLAttributes<HTMLAnchorElement> & { to: string }) {
  const { to, onClick, ...rest } = props;
  const follow = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (event.defaultPrevented) return;
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return <a href={to} onClick={follow} {...rest} />;
}

/** Matches `/w/:ws/issues/:id`-style patterns; returns the named parts or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split("/").filter(Boolean);
  const got = path.split("/").filter(Boolean);
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (const [index, part] of want.entries()) {
    if (part.startsWith(":")) params[part.slice(1)] = decodeURIComponent(got[index]!);
    else if (part !== got[index]) return null;
  }
  return params;
}
