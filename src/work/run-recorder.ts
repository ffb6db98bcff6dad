// The RunSink of a task run: every AG-UI event of the run, in the official dialect, stored in order (run_events) as
// it happens, so `runs/{id}/events` can replay it and follow it live from any process. Events are written in small
// batches (one insert per few milliseconds of streaming), never one statement per token.

import type { Usage } from "../agents/model.ts";
import { type OfficialEvent, OfficialEventSink } from "../agents/official-events.ts";
import type { RunSink } from "../agents/run-types.ts";
import { type Db, databaseRefusal } from "../db/index.ts";
import { costOf, type ModelPrice, type TokenCounts } from "../usage/prices.ts";
import { type RunEvent, streamRunEvents } from "./run-events.ts";

/** How long events wait to be written with the ones after them. */
const BATCH_MS = 40;

export interface RecorderLog {
  warn(object: object, message: string): void;
}

export class RunRecorder implements RunSink {
  /** What the run used since this process claimed it. */
  readonly usageTotals: TokenCounts = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  private readonly events = new OfficialEventSink((event) => this.push(event));
  private buffer: RunEvent[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private openMessageId: string | undefined;
  private readonly openToolCalls = new Set<string>();
  private discarded = false;

  constructor(
    private readonly db: Db,
    private readonly runId: string,
    /** The number of the last event already stored for this run. */
    private seq: number,
    private readonly log: RecorderLog,
    /** The price of the run's model; undefined: unknown, the run records tokens and no cost. */
    private readonly price?: ModelPrice,
  ) {}

  get costUsd(): number | null {
    return this.price ? costOf(this.usageTotals, this.price) : null;
  }

  runStarted(threadId: string): void {
    this.events.runStarted({ threadId, runId: this.runId });
  }

  custom(name: string, value: unknown): void {
    this.events.custom({ name, value });
  }

  textStart(messageId: string): void {
    this.openMessageId = messageId;
    this.events.textStart(messageId);
  }

  textDelta(messageId: string, delta: string): void {
    this.events.textDelta(messageId, delta);
  }

  textEnd(messageId: string): void {
    this.openMessageId = undefined;
    this.events.textEnd(messageId);
  }

  toolCallStart(toolCallId: string, toolCallName: string, parentMessageId: string): void {
    this.openToolCalls.add(toolCallId);
    this.events.toolCallStart(toolCallId, toolCallName, parentMessageId);
  }

  toolCallArgs(toolCallId: string, delta: string): void {
    this.events.toolCallArgs(toolCallId, delta);
  }

  toolCallEnd(toolCallId: string): void {
    this.openToolCalls.delete(toolCallId);
    this.events.toolCallEnd(toolCallId);
  }

  toolCallResult(messageId: string, toolCallId: string, content: string): void {
    this.events.toolCallResult(messageId, toolCallId, content);
  }

  /** The number of the last event stored (after `flush`). */
  get lastSeq(): number {
    return this.seq;
  }

  usage(usage: Usage): void {
    this.usageTotals.inputTokens += usage.inputTokens ?? 0;
    this.usageTotals.outputTokens += usage.outputTokens ?? 0;
    this.usageTotals.cacheReadTokens += usage.cacheReadTokens ?? 0;
    this.usageTotals.cacheWriteTokens += usage.cacheWriteTokens ?? 0;
  }

  /**
   * Closes text or tool calls a stopped run left open (the AG-UI rules want every START ended) and writes everything;
   * the run's last event is then written by whoever ends it.
   */
  async settle(): Promise<void> {
    this.closeOpenBlocks();
    await this.flush();
  }

  /**
   * For an ending that stores the run's last events in its own transaction: closes what the run left open, waits for
   * the writes under way (so `lastSeq` is final) and answers the events not stored yet, which stay recorded until
   * `stored` says the ending committed them.
   */
  async unstored(): Promise<RunEvent[]> {
    this.closeOpenBlocks();
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.writing;
    return [...this.buffer];
  }

  /** The ending's transaction stored the first `count` unstored events, after `lastSeq`. */
  stored(count: number): void {
    this.buffer.splice(0, count);
    this.seq += count;
  }

  /** Drops what is not written yet and writes nothing more (the run is no longer this process's). */
  discard(): void {
    clearTimeout(this.timer);
    this.buffer = [];
    this.discarded = true;
  }

  /** Writes everything recorded so far; resolves once it is stored. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.buffer.length > 0) {
      const batch = this.buffer;
      this.buffer = [];
      this.writing = this.writing.then(() => this.write(batch));
    }
    return this.writing;
  }

  private closeOpenBlocks(): void {
    if (this.openMessageId) this.textEnd(this.openMessageId);
    for (const toolCallId of [...this.openToolCalls]) this.toolCallEnd(toolCallId);
  }

  private push(event: OfficialEvent): void {
    if (this.discarded) return;
    this.buffer.push(event);
    this.timer ??= setTimeout(() => void this.flush(), BATCH_MS);
  }

  private async write(batch: RunEvent[]): Promise<void> {
    if (this.discarded) return;
    try {
      this.seq = await streamRunEvents(this.db, this.runId, this.seq, batch);
    } catch (error) {
      // The run went with its task, agent or workspace: there is nowhere to write, and the run itself is told to stop.
      if (databaseRefusal(error) === "missing_reference") return this.discard();
      this.log.warn(
        { runId: this.runId, message: error instanceof Error ? error.message : String(error) },
        "run events not stored",
      );
    }
  }
}
