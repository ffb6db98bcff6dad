// A task's events on their way to the server: numbered by `seq` from 1, sent in batches at most every 250 ms, each
// batch re-sent until answered (the server keeps one copy per seq), so a server that restarts loses nothing.
import { setTimeout as delay } from "node:timers/promises";
import type { OfficialEvent } from "./agui.ts";
import type { SeqEvent } from "./client.ts";
import { type RetryOptions, untilAnswered } from "./retry.ts";

const BATCH_INTERVAL_MS = 250;
export const MAX_BATCH = 500;

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
  /** From the task's start: what a quick CLI says in its first 250 ms goes in one batch (often its only one). */
  private lastSendAt = Date.now();
  private stopped = false;
  /** Set by `takeRest`: no batch is started any more. */
  private closing = false;
  private waiting: AbortController | undefined;
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

  /**
   * The run ended: the events not sent yet, once the batch under way (if any) is answered, to go with the run's end;
   * nothing more is sent. At most MAX_BATCH of them: more are sent first, without waiting for the interval.
   */
  async takeRest(): Promise<SeqEvent[]> {
    this.closing = true;
    this.waiting?.abort();
    await this.drained();
    while (!this.stopped && this.pending.length > MAX_BATCH) {
      this.closing = false;
      this.lastSendAt = 0;
      this.sending ??= this.sendAll(MAX_BATCH);
      await this.drained();
    }
    if (this.stopped) return [];
    const rest = this.pending;
    this.pending = [];
    this.stopped = true;
    return rest;
  }

  /** Drops what is not sent yet and gives up any retry (the task was cancelled or is no longer ours). */
  stop(): void {
    this.stopped = true;
    this.pending = [];
    this.abort.abort();
  }

  /** Sends batches while more than `keep` events wait (all of them, normally). */
  private async sendAll(keep = 0): Promise<void> {
    try {
      while (this.pending.length > keep && !this.stopped && !this.closing) {
        const wait = this.lastSendAt + BATCH_INTERVAL_MS - Date.now();
        if (wait > 0) {
          this.waiting = new AbortController();
          await delay(wait, undefined, { signal: this.waiting.signal }).catch(() => {});
          this.waiting = undefined;
          if (this.closing) break;
        }
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
