// Cross-process fan-out: how a process hears that a workspace has new events. PostgreSQL pushes a NOTIFY from any
// process to a dedicated listening client in every process; SQLite (one process) hears its own appends. Either way a
// hint says "workspace W has reached seq N", and on PostgreSQL carries the event itself when it fits: a feed that has
// everything before it writes it at once, otherwise subscribers read the rows from the outbox in seq order.
import { PostgresListener } from "../db/listener.ts";
import { type HintListener, onLocalSignal } from "./local-signal.ts";
import { EVENTS_CHANNEL, parseEventNotice } from "./outbox.ts";

export interface EventSignal {
  /** `listener` hears every hint. */
  onHint(listener: HintListener): void;
  /** `listener` hears when hints may have been missed (a listening connection came back): read everything again. */
  onResync(listener: () => void): void;
  close(): Promise<void>;
}

export function openEventSignal(dialect: "sqlite" | "postgres", databaseUrl: string, log: SignalLog): EventSignal {
  return dialect === "postgres" ? new PostgresSignal(databaseUrl, log) : new LocalSignal();
}

interface SignalLog {
  warn(object: object, message: string): void;
}

class LocalSignal implements EventSignal {
  private readonly stops: Array<() => void> = [];

  onHint(listener: HintListener): void {
    this.stops.push(onLocalSignal(listener));
  }

  onResync(): void {}

  async close(): Promise<void> {
    for (const stop of this.stops.splice(0)) stop();
  }
}

class PostgresSignal implements EventSignal {
  private readonly hintListeners: HintListener[] = [];
  private readonly resyncListeners: Array<() => void> = [];
  private readonly listener: PostgresListener;

  constructor(databaseUrl: string, log: SignalLog) {
    this.listener = new PostgresListener(
      databaseUrl,
      [EVENTS_CHANNEL],
      {
        notification: (_channel, payload) => this.hint(payload),
        // Whatever was committed while no connection listened is found by reading the outbox again.
        reconnected: () => {
          for (const listener of this.resyncListeners) listener();
        },
      },
      log,
    );
  }

  onHint(listener: HintListener): void {
    this.hintListeners.push(listener);
  }

  onResync(listener: () => void): void {
    this.resyncListeners.push(listener);
  }

  close(): Promise<void> {
    return this.listener.close();
  }

  private hint(payload: string): void {
    const notice = parseEventNotice(payload);
    if (!notice) return;
    for (const listener of this.hintListeners) listener(notice.workspaceId, notice.seq, notice.event);
  }
}
