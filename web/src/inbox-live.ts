// The signed-in person's inbox, live: one stream per tab (a ticket from POST me/inbox/tickets, then EventSource on
// me/inbox/stream?ticket=…; a dropped stream gets a new ticket), and the unread count every view shares, asked again
// when an item arrives, when the stream (re)opens, when this tab reads items and when items are read elsewhere (another
// tab, or a decision that reads them for everyone: `inbox.read`).
import { useEffect, useRef, useSyncExternalStore } from "react";
import { api, getSession } from "./api.ts";
import type { InboxItem } from "./api-types.ts";

/**
 * An item, or null when the list should be read again: the stream (re)opened (what came meanwhile is in a fresh
 * read), or items were read elsewhere.
 */
type Handler = (item: InboxItem | null) => void;

const handlers = new Set<Handler>();
let source: EventSource | null = null;
let retry: ReturnType<typeof setTimeout> | undefined;
let closeTimer: ReturnType<typeof setTimeout> | undefined;
/** Whose stream is open: another person signing in on this tab gets a stream of their own. */
let openedFor: string | undefined;

function close(): void {
  source?.close();
  source = null;
  clearTimeout(retry);
  retry = undefined;
}

function open(): void {
  openedFor = getSession()?.token;
  api
    .post<{ ticket: string }>("me/inbox/tickets")
    .then(({ ticket }) => {
      if (handlers.size === 0) return;
      const stream = new EventSource(`/api/v1/me/inbox/stream?${new URLSearchParams({ ticket })}`);
      source = stream;
      stream.addEventListener("inbox.item", (frame) => {
        const item = JSON.parse((frame as MessageEvent<string>).data) as InboxItem;
        for (const handler of handlers) handler(item);
      });
      stream.addEventListener("inbox.read", () => {
        for (const handler of handlers) handler(null);
      });
      stream.onopen = () => {
        for (const handler of handlers) handler(null);
      };
      stream.onerror = () => {
        stream.close();
        if (source === stream) source = null;
        schedule();
      };
    })
    .catch(() => schedule());
}

function schedule(): void {
  if (retry || handlers.size === 0) return;
  retry = setTimeout(() => {
    retry = undefined;
    open();
  }, 2000);
}

/** Calls `handler` with each new item of the signed-in person (and null when the stream (re)opens). */
export function useInboxItems(handler: Handler): void {
  const latest = useRef(handler);
  latest.current = handler;
  useEffect(() => {
    const mine: Handler = (item) => latest.current(item);
    handlers.add(mine);
    clearTimeout(closeTimer);
    if (openedFor !== getSession()?.token) close();
    if (!source && !retry && handlers.size === 1) open();
    return () => {
      handlers.delete(mine);
      if (handlers.size > 0) return;
      // Kept a moment: moving between pages reuses the open stream.
      closeTimer = setTimeout(() => {
        if (handlers.size === 0) close();
      }, 2000);
    };
  }, []);
}

let unread: number | undefined;
const countListeners = new Set<() => void>();
let asking = false;
let askAgain = false;

/** Asks the server for the unread count again (at most one request at a time, one more after it if asked). */
export function refreshUnread(): void {
  if (asking) {
    askAgain = true;
    return;
  }
  asking = true;
  api
    .get<{ unread: number }>("me/inbox/count")
    .then(
      (answer) => {
        unread = answer.unread;
        for (const listener of countListeners) listener();
      },
      () => {},
    )
    .finally(() => {
      asking = false;
      if (askAgain) {
        askAgain = false;
        refreshUnread();
      }
    });
}

function subscribeCount(listener: () => void): () => void {
  countListeners.add(listener);
  if (countListeners.size === 1) refreshUnread();
  return () => {
    countListeners.delete(listener);
    // The next person to sign in on this tab does not see this one's count, even for a moment.
    if (countListeners.size === 0) unread = undefined;
  };
}

/** The signed-in person's unread count (undefined until known), live. */
export function useUnreadCount(): number | undefined {
  useInboxItems(() => refreshUnread());
  return useSyncExternalStore(subscribeCount, () => unread);
}
