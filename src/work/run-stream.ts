// `runs/{id}/events`: a run's stored AG-UI events as server-sent events, one `id:` (its number) per event; first all
// stored so far (after `Last-Event-ID`), then live until the run's last event. Live means: woken by the run's
// signal, from whichever process runs it, then read from the database, so every subscriber of every process sees
// the same events in the same order, with no gap and no repeat.
import { Coalescer } from "../db/coalesce.ts";
import type { Db } from "../db/index.ts";
import type { AccessWatch } from "../events/access-watch.ts";
import type { SubscriberIdentity } from "../events/stream.ts";
import { KeepAlives, type SseStream, sseFrame } from "../http/sse.ts";
import { readRunEvents, TERMINAL_EVENT_TYPES } from "./run-events.ts";
import type { WorkSignals } from "./signals.ts";

const READ_BATCH = 500;
/** A missed signal (the listening connection dropped) delays an event by at most this long. */
const SAFETY_POLL_MS = 2_000;

export class RunEventStreams {
  private readonly byRun = new Map<string, Set<RunStream>>();
  private readonly stopSignals: () => void;
  private readonly keepAlives: KeepAlives;

  constructor(
    private readonly db: Db,
    signals: WorkSignals,
    private readonly accessWatch: AccessWatch,
    keepAliveMs: number,
  ) {
    this.keepAlives = new KeepAlives(keepAliveMs, ": keep-alive\n\n");
    this.stopSignals = signals.on((signal) => {
      if (signal.kind === "run") for (const stream of this.byRun.get(signal.runId) ?? []) stream.wake();
    });
    signals.onResync(() => {
      for (const streams of this.byRun.values()) for (const stream of streams) stream.wake();
    });
  }

  /**
   * Streams the run's events after `afterSeq`; ends by itself after the last one, or once `viewer` loses access to
   * the run's workspace.
   */
  follow(sse: SseStream, run: { id: string; workspaceId: string }, viewer: SubscriberIdentity, afterSeq: number) {
    const runId = run.id;
    let streams = this.byRun.get(runId);
    if (!streams) {
      streams = new Set();
      this.byRun.set(runId, streams);
    }
    const stream = new RunStream(this.db, sse, runId, afterSeq);
    this.keepAlives.add(sse);
    streams.add(stream);
    const stopWatching = this.accessWatch.watch(run.workspaceId, viewer, () => stream.end());
    return stream.ended.finally(() => {
      stopWatching();
      streams.delete(stream);
      if (streams.size === 0) this.byRun.delete(runId);
    });
  }

  /** Ends every open stream (the server shuts down); clients resume elsewhere with Last-Event-ID. */
  closeAll(): void {
    this.stopSignals();
    this.keepAlives.close();
    for (const streams of this.byRun.values()) for (const stream of streams) stream.end();
  }
}

class RunStream {
  readonly ended: Promise<void>;
  private finish!: () => void;
  private readonly reads = new Coalescer(
    () => this.readAll(),
    () => this.end(),
  );
  private done = false;
  private readonly timers: NodeJS.Timeout[];

  constructor(
    private readonly db: Db,
    private readonly sse: SseStream,
    private readonly runId: string,
    private lastSeq: number,
  ) {
    this.ended = new Promise((resolve) => {
      this.finish = resolve;
    });
    sse.onClose(() => this.end());
    this.timers = [setInterval(() => this.wake(), SAFETY_POLL_MS)];
    this.wake();
  }

  wake(): void {
    if (!this.done) this.reads.run();
  }

  end(): void {
    if (this.done) return;
    this.done = true;
    for (const timer of this.timers) clearInterval(timer);
    this.sse.end();
    this.finish();
  }

  private async readAll(): Promise<void> {
    for (;;) {
      const events = await readRunEvents(this.db, this.runId, this.lastSeq, READ_BATCH);
      if (!events) return this.end();
      let chunk = "";
      let terminal = false;
      for (const event of events) {
        chunk += sseFrame({ id: event.seq, event: event.type, data: event.data });
        this.lastSeq = event.seq;
        terminal = TERMINAL_EVENT_TYPES.has(event.type);
        if (terminal) break;
      }
      // Read from the database at the client's pace: a slow reader holds nothing but its place in the run.
      if (chunk !== "" && !this.done) await this.sse.sendPaced(chunk);
      if (terminal) return this.end();
      if (this.done || events.length < READ_BATCH) break;
    }
  }
}
