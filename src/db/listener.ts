// A dedicated PostgreSQL connection that LISTENs on channels and comes back after it is lost. What it hears is only
// ever a hint: a listener must read the truth from tables, and after a reconnect (when notifications may have been
// missed) `onReconnect` says so. Shared by every cross-process push (events fan-out, tool-protocol sessions).
import pg from "pg";

export interface ListenerLog {
  warn(object: object, message: string): void;
}

interface ListenerHandlers {
  notification(channel: string, payload: string): void;
  /** The connection came back after it was lost: notifications sent meanwhile were missed. */
  reconnected?(): void;
}

const CHANNEL_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 5_000;

export class PostgresListener {
  private client: pg.Client | undefined;
  private closed = false;
  private reconnectDelayMs = RECONNECT_MIN_MS;
  private reconnectTimer: NodeJS.Timeout | undefined;
  /** Resolves once the first connection listens, or its first try failed. */
  readonly ready: Promise<void>;

  constructor(
    private readonly databaseUrl: string,
    private readonly channels: string[],
    private readonly handlers: ListenerHandlers,
    private readonly log: ListenerLog,
  ) {
    // Written into the LISTEN statement as they are: our own names, never input.
    for (const channel of channels) if (!CHANNEL_NAME.test(channel)) throw new Error(`Bad channel name: ${channel}`);
    this.ready = this.connect(false);
  }

  /** True while a connection listens: nothing sent meanwhile is missed. */
  get listening(): boolean {
    return this.client !== undefined;
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
    client.on("notification", (message) => this.handlers.notification(message.channel, message.payload ?? ""));
    client.on("error", () => this.lost(client));
    client.on("end", () => this.lost(client));
    try {
      await client.connect();
      for (const channel of this.channels) await client.query(`LISTEN ${channel}`);
    } catch (error) {
      this.log.warn({ message: error instanceof Error ? error.message : String(error) }, "listener: no connection");
      this.lost(client);
      return;
    }
    if (this.closed) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
    this.reconnectDelayMs = RECONNECT_MIN_MS;
    if (isReconnect) this.handlers.reconnected?.();
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
}
