// A small history router: paths are the state, links are real <a href> so every page has a URL.
import { type MouseEvent, type ReactNode, useEffect, useState } from "react";

const listeners = new Set<() => void>();

export function navigate(path: string, replace = false): void {
  if (replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  for (const listener of listeners) listener();
}

export function usePath(): string {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const update = () => setPath(location.pathname);
    listeners.add(update);
    window.addEventListener("popstate", update);
    return () => {
      listeners.delete(update);
      window.removeEventListener("popstate", update);
    };
  }, []);
  return path;
}

export function Link(props: {
  to: string;
  children: ReactNode;
  className?: string;
  "aria-current"?: "page" | undefined;
  draggable?: boolean;
  onDragStart?: (event: React.DragEvent<HTMLAnchorElement>) => void;
  onDragEnd?: () => void;
  "aria-label"?: string;
}) {
  const { to, children, ...rest } = props;
  const follow = (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return (
    <a href={to} onClick={follow} {...rest}>
      {children}
    </a>
  );
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
