// Cross-process fan-out of events, over db/signals.ts: a hint says "workspace W has reached seq N", and carries the
// event itself when it fits (append.ts; the same payload on both databases, heard only once committed): a feed that
// has everything before it writes it at once, otherwise subscribers read the rows from the outbox in seq order.
import type { ListenerLog } from "../db/listener.ts";
import { openSignals } from "../db/signals.ts";
import { EVENTS_CHANNEL, parseEventNotice, type WorkspaceEvent } from "./outbox.ts";

/** `event` is the event of `seq` itself, when the hint carried it (committed: hints go out only then). */
export type HintListener = (workspaceId: string, seq: number, event?: WorkspaceEvent) => void;

export interface EventSignal {
  /** Resolves once hints are heard (PostgreSQL: the LISTEN is in place); a hint sent before may be missed. */
  readonly ready: Promise<void>;
  /** `listener` hears every hint. */
  onHint(listener: HintListener): void;
  /** `listener` hears when hints may have been missed (a listening connection came back): read everything again. */
  onResync(listener: () => void): void;
  close(): Promise<void>;
}

export function openEventSignal(dialect: "sqlite" | "postgres", databaseUrl: string, log: ListenerLog): EventSignal {
  const signals = openSignals(dialect, databaseUrl, [EVENTS_CHANNEL], log);
  return {
    ready: signals.ready,
    onHint: (listener) => {
      signals.on(EVENTS_CHANNEL, (payload) => {
        const notice = parseEventNotice(payload);
        if (notice) listener(notice.workspaceId, notice.seq, notice.event);
      });
    },
    onResync: (listener) => signals.onResync(listener),
    close: () => signals.close(),
  };
}
