// Cross-process fan-out: how a process hears that a workspace has new events. PostgreSQL pushes a NOTIFY from any
// process to a dedicated listening client in every process; SQLite (one process) hears its own appends. Either way a
// hint only says "workspace W has reached seq N": subscribers read the rows from the outbox in seq order.
import pg from "pg";
import { type HintListener, onLocalSignal } from "./local-signal.ts";
import { EVENTS_CHANNEL } from "./outbox.ts";

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

export interface SignalLog {
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

const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 5_000;

class PostgresSignal implements EventSignal {
  private readonly hintListeners: HintListener[] = [];
  private readonly resyncListeners: Array<() => void> = [];
  private client: pg.Client | undefined;
  private closed = false;
  private reconnectDelayMs = RECONNECT_MIN_MS;
  private reconnectTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly databaseUrl: string,
    private readonly log: SignalLog,
  ) {
    void this.connect(false);
  }

  onHint(listener: HintListener): void {
    this.hintListeners.push(listener);
  }

  onResync(listener: () => void): void {
    this.resyncListeners.push(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  private async connect(isReconnect: boolean): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl });
    client.on("notification", (message) => this.hint(message.payload));
    client.on("error", () => this.lost(client));
    client.on("end", () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${EVENTS_CHANNEL}`);
    } catch (error) {
      this.log.warn(
        { message: error instanceof Error ? error.message : String(error) },
        "event listener: no connection",
      );
      this.lost(client);
      return;
    }
    if (this.closed) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
    this.reconnectDelayMs = RECONNECT_MIN_MS;
    // Whatever was committed while no connection listened is found by reading the outbox again.
    if (isReconnect) for (const listener of this.resyncListeners) listener();
  }

  private lost(client: pg.Client): void {
    if (this.client !== undefined && this.client !== client) return;
    this.client = undefined;
    client.removeAllListeners("end");
    client.end().catch(() => {});
    if (this.closed || this.reconnectTimer) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      void this.connect(true);
    }, this.reconnectDelayMs);
    this.reconnectDelayMs = Math.min(this.reconnectDelayMs * 2, RECONNECT_MAX_MS);
  }

  private hint(payload: string | undefined): void {
    const separator = payload?.lastIndexOf(":") ?? -1;
    if (!payload || separator < 0) return;
    const workspaceId = payload.slice(0, separator);
    const seq = Number(payload.slice(separator + 1));
    if (!Number.isInteger(seq)) return;
    for (const listener of this.hintListeners) listener(workspaceId, seq);
  }
}
