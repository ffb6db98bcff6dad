// A task's events on their way to the server: numbered by `seq` from 1, sent in batches at most every 250 ms, each
// batch re-sent until answered (the server keeps one copy per seq), so a server that restarts loses nothing.
import { setTimeout as delay } from "node:timers/promises";
import type { OfficialEvent } from "./agui.ts";
import type { SeqEvent } from "./client.ts";
import { type RetryOptions, untilAnswered } from "./retry.ts";

const BATCH_INTERVAL_MS = 250;
const MAX_BATCH = 500;

interface EventBatcherOptions {
  /** Posts a batch; resolves to whether the task was cancelled under this runner. */
  send: (events: SeqEvent[]) => Promise<boolean>;
  onCancel: () => void;
  /** A refusal another try will not change (the task is no longer ours, the token was revoked...). */
  onRefused: (error: unknown) => void;
  onRetry?: RetryOptions["onRetry"];
}

export class EventBatcher {
  private pending: SeqEvent[] = [];
  private nextSeq = 1;
  private sending: Promise<void> | undefined;
  private lastSendAt = 0;
  private stopped = false;
  private readonly abort = new AbortController();

  constructor(private readonly options: EventBatcherOptions) {}

  push(event: OfficialEvent): void {
    if (this.stopped) return;
    this.pending.push({ ...event, seq: this.nextSeq++ });
    this.sending ??= this.sendAll();
  }

  /** Resolves once every event pushed so far is answered, or the batcher has stopped. */
  async drained(): Promise<void> {
    while (this.sending !== undefined) await this.sending;
  }

  /** Drops what is not sent yet and gives up any retry (the task was cancelled or is no longer ours). */
  stop(): void {
    this.stopped = true;
    this.pending = [];
    this.abort.abort();
  }

  private async sendAll(): Promise<void> {
    try {
      while (this.pending.length > 0 && !this.stopped) {
        const wait = this.lastSendAt + BATCH_INTERVAL_MS - Date.now();
        if (wait > 0) await delay(wait);
        const batch = this.pending.slice(0, MAX_BATCH);
        this.lastSendAt = Date.now();
        const cancelled = await untilAnswered(() => this.options.send(batch), {
          signal: this.abort.signal,
          onRetry: this.options.onRetry,
        });
        const lastSeq = batch[batch.length - 1]?.seq ?? 0;
        this.pending = this.pending.filter((event) => event.seq > lastSeq);
        if (cancelled) {
          this.stop();
          this.options.onCancel();
        }
      }
    } catch (error) {
      if (!this.stopped) {
        this.stop();
        this.options.onRefused(error);
      }
    } finally {
      this.sending = undefined;
    }
  }
}
