// One workspace event stream per open workspace: a ticket from POST events/tickets, then EventSource on
// events/stream?ticket=…; a dropped stream gets a new ticket and resumes after the last seq it saw.
import { useEffect, useRef } from "react";
import { EVENT_TYPES } from "../../src/events/event-types.ts";
import { api } from "./api.ts";
import type { PlatformEvent } from "./api-types.ts";

type Handler = (event: PlatformEvent) => void;

interface Channel {
  workspaceId: string;
  handlers: Set<Handler>;
  source: EventSource | null;
  lastSeq: number | undefined;
  retry: ReturnType<typeof setTimeout> | undefined;
  closed: boolean;
}

const channels = new Map<string, Channel>();

function open(channel: Channel): void {
  api
    .post<{ ticket: string }>(`workspaces/${channel.workspaceId}/events/tickets`)
    .then(({ ticket }) => {
      if (channel.closed) return;
      const params = new URLSearchParams({ ticket });
      if (channel.lastSeq !== undefined) params.set("after_seq", String(channel.lastSeq));
      const source = new EventSource(`/api/v1/workspaces/${channel.workspaceId}/events/stream?${params}`);
      channel.source = source;
      const onFrame = (frame: MessageEvent<string>) => {
        const event = JSON.parse(frame.data) as PlatformEvent;
        if (channel.lastSeq !== undefined && event.seq <= channel.lastSeq) return;
        channel.lastSeq = event.seq;
        for (const handler of channel.handlers) handler(event);
      };
      source.onmessage = onFrame;
      // EventSource hands a named frame only to a listener of that name.
      for (const type of EVENT_TYPES) source.addEventListener(type, onFrame);
      // Every view asks the API again when the stream (re)opens: what happened before its first event is in
      // those answers, what happened while it was down comes again from after_seq.
      source.onopen = () => {
        for (const handler of channel.handlers) handler({ type: "stream.open" } as PlatformEvent);
      };
      source.onerror = () => {
        source.close();
        channel.source = null;
        schedule(channel);
      };
    })
    .catch(() => schedule(channel));
}

function schedule(channel: Channel): void {
  if (channel.closed || channel.retry) return;
  channel.retry = setTimeout(() => {
    channel.retry = undefined;
    open(channel);
  }, 1000);
}

/** Calls `handler` for every event of the workspace (and `stream.open` when the stream (re)connects). */
export function useWorkspaceEvents(workspaceId: string | undefined, handler: Handler): void {
  const latest = useRef(handler);
  latest.current = handler;
  useEffect(() => {
    if (!workspaceId) return;
    let channel = channels.get(workspaceId);
    if (!channel) {
      channel = { workspaceId, handlers: new Set(), source: null, lastSeq: undefined, retry: undefined, closed: false };
      channels.set(workspaceId, channel);
      open(channel);
    }
    const mine: Handler = (event) => latest.current(event);
    channel.handlers.add(mine);
    const held = channel;
    return () => {
      held.handlers.delete(mine);
      if (held.handlers.size === 0) {
        // Kept a moment: moving between pages of one workspace reuses the open stream.
        setTimeout(() => {
          if (held.handlers.size > 0) return;
          held.closed = true;
          held.source?.close();
          clearTimeout(held.retry);
          channels.delete(workspaceId);
        }, 2000);
      }
    };
  }, [workspaceId]);
}

/** Runs `refresh` at most once per `delayMs` while events keep coming (coalesces bursts into one refetch). */
export function useCoalesced(refresh: () => void, delayMs = 100): () => void {
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const latest = useRef(refresh);
  latest.current = refresh;
  useEffect(() => () => clearTimeout(timer.current), []);
  return () => {
    if (timer.current) return;
    timer.current = setTimeout(() => {
      timer.current = undefined;
      latest.current();
    }, delayMs);
  };
}
