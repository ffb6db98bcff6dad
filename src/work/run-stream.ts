// `runs/{id}/events`: a run's stored AG-UI events as server-sent events, one `id:` (its number) per event; first all
// stored so far (after `Last-Event-ID`), then live until the run's last event. Live means: woken by the run's
// signal, from whichever process runs it, then read from the database, so every subscriber of every process sees
// the same events in the same order, with no gap and no repeat.
import { once } from "node:events";
import type { ServerResponse } from "node:http";
import { sseFrame } from "../agui/events.ts";
import type { Db } from "../db/index.ts";
import { readRunEvents, TERMINAL_EVENT_TYPES } from "./run-events.ts";
import type { WorkSignals } from "./signals.ts";

export const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  "x-accel-buffering": "no",
  connection: "keep-alive",
};

const READ_BATCH = 500;
/** A missed signal (the listening connection dropped) delays an event by at most this long. */
const SAFETY_POLL_MS = 2_000;

export class RunEventStreams {
  private readonly byRun = new Map<string, Set<RunStream>>();
  private readonly stopSignals: () => void;

  constructor(
    private readonly db: Db,
    signals: WorkSignals,
    private readonly keepAliveMs: number,
  ) {
    this.stopSignals = signals.on((signal) => {
      if (signal.kind === "run") for (const stream of this.byRun.get(signal.runId) ?? []) stream.wake();
    });
    signals.onResync(() => {
      for (const streams of this.byRun.values()) for (const stream of streams) stream.wake();
    });
  }

  /** Streams the run's events after `afterSeq` on `res` (headers already sent); ends by itself after the last one. */
  follow(res: ServerResponse, runId: string, afterSeq: number): Promise<void> {
    let streams = this.byRun.get(runId);
    if (!streams) {
      streams = new Set();
      this.byRun.set(runId, streams);
    }
    const stream = new RunStream(this.db, res, runId, afterSeq, this.keepAliveMs);
    streams.add(stream);
    return stream.ended.finally(() => {
      streams.delete(stream);
      if (streams.size === 0) this.byRun.delete(runId);
    });
  }

  /** Ends every open stream (the server shuts down); clients resume elsewhere with Last-Event-ID. */
  closeAll(): void {
    this.stopSignals();
    for (const streams of this.byRun.values()) for (const stream of streams) stream.end();
  }
}

class RunStream {
  readonly ended: Promise<void>;
  private finish!: () => void;
  private reading: Promise<void> | undefined;
  private readAgain = false;
  private done = false;
  private wroteSinceTick = false;
  private readonly timers: NodeJS.Timeout[];

  constructor(
    private readonly db: Db,
    private readonly res: ServerResponse,
    private readonly runId: string,
    private lastSeq: number,
    keepAliveMs: number,
  ) {
    this.ended = new Promise((resolve) => {
      this.finish = resolve;
    });
    res.on("close", () => this.end());
    this.timers = [
      setInterval(() => this.wake(), SAFETY_POLL_MS),
      setInterval(() => {
        if (!this.wroteSinceTick) this.write(": keep-alive\n\n");
        this.wroteSinceTick = false;
      }, keepAliveMs),
    ];
    this.wake();
  }

  wake(): void {
    if (this.done) return;
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = this.readAll()
      .catch(() => this.end())
      .finally(() => {
        this.reading = undefined;
      });
  }

  end(): void {
    if (this.done) return;
    this.done = true;
    for (const timer of this.timers) clearInterval(timer);
    if (!this.res.writableEnded) this.res.end();
    this.finish();
  }

  private async readAll(): Promise<void> {
    do {
      this.readAgain = false;
      for (;;) {
        const events = await readRunEvents(this.db, this.runId, this.lastSeq, READ_BATCH);
        if (!events) return this.end();
        let flowing = true;
        for (const event of events) {
          if (this.done) return;
          flowing = this.write(sseFrame(event.type, event.data, event.seq));
          this.lastSeq = event.seq;
          if (TERMINAL_EVENT_TYPES.has(event.type)) return this.end();
        }
        if (!flowing && !this.done) await Promise.race([once(this.res, "drain"), this.ended]);
        if (events.length < READ_BATCH) break;
      }
    } while (this.readAgain && !this.done);
  }

  private write(chunk: string): boolean {
    if (this.res.destroyed || this.res.writableEnded) return true;
    this.wroteSinceTick = true;
    return this.res.write(chunk);
  }
}
