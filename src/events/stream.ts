// The workspace event stream: one feed per workspace with subscribers in this process reads each new event from the
// outbox once and writes its frame to every subscriber. A subscriber first replays what it missed from the outbox at
// its own pace, then joins the feed: it never sees a gap or a duplicate seq, and one that stops reading is dropped.
import { Coalescer } from "../db/coalesce.ts";
import type { Db } from "../db/index.ts";
import { KeepAlives, type SseStream, sseFrame } from "../http/sse.ts";
import { headSeq, readEvents, type WorkspaceEvent } from "./outbox.ts";
import type { EventSignal } from "./signal.ts";
import { matchesTypes } from "./types.ts";

const READ_BATCH = 500;
const REPLAY_CHUNK_CHARS = 64 * 1024;

interface StreamSettings {
  /** Interval of keep-alive comments (default 15 s). */
  keepAliveMs: number;
  /** Interval of a read of every feed even without hints, a backstop for hints that never came (default 5 s). */
  sweepMs: number;
  /** Told when a batch of events goes out to live subscribers, with its oldest event's creation time. */
  onLiveEvents?: ((oldestCreatedAt: string) => void) | undefined;
}

/** Someone who hears a workspace only while they may: a subscriber, or a stream elsewhere that watches access. */
interface Viewer extends SubscriberIdentity {
  /** Access is gone: the stream ends. */
  drop(): void;
}

export interface SubscriberIdentity {
  userId: string;
  /** Set when the subscriber authenticated with an API key: revoking it ends the stream. */
  apiKeyId?: string | undefined;
}

interface SubscribeOptions extends SubscriberIdentity {
  workspaceId: string;
  /** Replay from after this seq; undefined = only events from now on. */
  afterSeq: number | undefined;
  types: readonly string[];
}

export const eventFrame = (event: WorkspaceEvent): string =>
  sseFrame({ id: event.seq, event: event.type, data: JSON.stringify(event) });

export class EventStreamHub {
  private readonly feeds = new Map<string, WorkspaceFeed>();
  private readonly keepAlives: KeepAlives;
  private readonly sweep: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly db: Db,
    signal: EventSignal,
    private readonly settings: StreamSettings,
    private readonly onError: (error: unknown) => void,
  ) {
    signal.onHint((workspaceId, seq, event) => this.feeds.get(workspaceId)?.hint(seq, event));
    signal.onResync(() => this.pullAll());
    // One timer each for every stream rather than one per subscriber.
    this.keepAlives = new KeepAlives(settings.keepAliveMs, ": keepalive\n\n");
    this.sweep = setInterval(() => this.pullAll(), settings.sweepMs).unref();
  }

  /** Starts streaming to `sink`; the stream ends when the client leaves (or is dropped). */
  async subscribe(sink: SseStream, options: SubscribeOptions): Promise<void> {
    if (this.closed) {
      sink.drop();
      return;
    }
    this.keepAlives.add(sink);
    await this.feedOf(options.workspaceId).add(new Subscriber(sink, options));
  }

  /**
   * Calls `onLost` once `viewer` may no longer see the workspace (removed, left, its API key revoked, or the workspace
   * deleted), as event streams end: for streams of the workspace's data outside this hub. Returns the stop.
   */
  watchAccess(workspaceId: string, viewer: SubscriberIdentity, onLost: () => void): () => void {
    if (this.closed) return () => {};
    let lost = false;
    const watch: Viewer = {
      ...viewer,
      drop: () => {
        if (lost) return;
        lost = true;
        onLost();
      },
    };
    const feed = this.feedOf(workspaceId);
    feed.watch(watch);
    return () => feed.unwatch(watch);
  }

  /** Subscribers in this process, for tests and metrics. */
  get subscriberCount(): number {
    let count = 0;
    for (const feed of this.feeds.values()) count += feed.size;
    return count;
  }

  /** Ends every stream (server shutdown). */
  close(): void {
    this.closed = true;
    this.keepAlives.close();
    clearInterval(this.sweep);
    for (const feed of [...this.feeds.values()]) feed.closeAll();
    this.feeds.clear();
  }

  private feedOf(workspaceId: string): WorkspaceFeed {
    const feed = this.feeds.get(workspaceId);
    if (feed) return feed;
    const created = new WorkspaceFeed(
      this.db,
      workspaceId,
      this.onError,
      () => {
        if (this.feeds.get(workspaceId) === created) this.feeds.delete(workspaceId);
      },
      this.settings.onLiveEvents,
    );
    this.feeds.set(workspaceId, created);
    return created;
  }

  /** The backstop read of every feed; feeds of a workspace deleted meanwhile end their streams. */
  private pullAll(): void {
    if (this.feeds.size === 0) return;
    for (const feed of this.feeds.values()) feed.pull();
    void this.endDeletedWorkspaces().catch(this.onError);
  }

  private async endDeletedWorkspaces(): Promise<void> {
    const ids = [...this.feeds.keys()];
    const existing = new Set(
      (await this.db.selectFrom("workspaces").select("id").where("id", "in", ids).execute()).map((row) => row.id),
    );
    for (const id of ids) if (!existing.has(id)) this.feeds.get(id)?.closeAll();
  }
}

/** The subscribers of one workspace in this process, and how far the outbox has been read for them. */
class WorkspaceFeed {
  /** The last seq read from the outbox and written to the subscribers that are live. */
  position = 0;
  private readonly subscribers = new Set<Subscriber>();
  /** Streams elsewhere that end when their viewer loses access (run streams). */
  private readonly watches = new Set<Viewer>();
  private readonly ready: Promise<void>;
  private readonly reads: Coalescer;
  /** Once the position is known (the outbox head when the feed was made). */
  private isReady = false;

  constructor(
    readonly db: Db,
    readonly workspaceId: string,
    private readonly onError: (error: unknown) => void,
    private readonly onEmpty: () => void,
    private readonly onLiveEvents?: (oldestCreatedAt: string) => void,
  ) {
    this.reads = new Coalescer(() => this.readAll(), onError);
    this.ready = headSeq(db, workspaceId).then((head) => {
      this.position = head;
      this.isReady = true;
    });
  }

  get size(): number {
    return this.subscribers.size;
  }

  async add(subscriber: Subscriber): Promise<void> {
    this.subscribers.add(subscriber);
    subscriber.onClose(() => {
      this.subscribers.delete(subscriber);
      this.emptied();
    });
    try {
      await this.ready;
      await subscriber.catchUp(this.db, this);
    } catch (error) {
      subscriber.drop();
      this.onError(error);
    }
  }

  /**
   * A hint: the workspace has reached `seq`, whose committed `event` may come with it. When it is the very next one
   * and no read is under way, it is written at once; otherwise the outbox is read from the feed's position.
   */
  hint(seq: number, event?: WorkspaceEvent): void {
    if (seq <= this.position) return;
    if (event && this.isReady && !this.reads.busy && seq === this.position + 1) {
      this.position = seq;
      this.broadcast([event]);
      return;
    }
    this.pull();
  }

  /** Reads what the outbox holds after `position` and writes it to the live subscribers; one read at a time. */
  pull(): void {
    this.reads.run();
  }

  watch(viewer: Viewer): void {
    this.watches.add(viewer);
    // Its events are read from now on (the position is the head once ready), like a subscriber's that starts live.
    void this.ready.catch(this.onError);
  }

  unwatch(viewer: Viewer): void {
    if (this.watches.delete(viewer)) this.emptied();
  }

  closeAll(): void {
    for (const subscriber of [...this.subscribers]) subscriber.drop();
    for (const viewer of [...this.watches]) viewer.drop();
    this.watches.clear();
    this.emptied();
  }

  private emptied(): void {
    if (this.subscribers.size === 0 && this.watches.size === 0) this.onEmpty();
  }

  private async readAll(): Promise<void> {
    await this.ready;
    for (;;) {
      const events = await readEvents(this.db, this.workspaceId, { afterSeq: this.position, limit: READ_BATCH });
      if (events.length === 0) break;
      this.position = events.at(-1)!.seq;
      this.broadcast(events);
      if (events.length < READ_BATCH) break;
    }
  }

  private broadcast(events: WorkspaceEvent[]): void {
    const batch = new Batch(events);
    if (this.subscribers.size > 0) this.onLiveEvents?.(events[0]!.created_at);
    for (const subscriber of this.subscribers) subscriber.live(batch, this);
    for (const event of events) this.endStreamsThatLostAccess(event);
  }

  /** A member who left or was removed, and a revoked key, stop hearing the workspace at once. */
  private endStreamsThatLostAccess(event: WorkspaceEvent): void {
    const lostUser = event.type === "member.removed" || event.type === "member.left" ? event.data.user_id : undefined;
    const lostKey = event.type === "api_key.revoked" ? event.entity_id : undefined;
    if (lostUser === undefined && lostKey === undefined) return;
    for (const viewer of [...this.subscribers, ...this.watches]) {
      if (viewer.userId === lostUser || (lostKey && viewer.apiKeyId === lostKey)) viewer.drop();
    }
  }
}

/** Events read together, framed once for every subscriber that wants them all. */
class Batch {
  private readonly frames: string[];
  private all: Buffer | undefined;

  constructor(readonly events: WorkspaceEvent[]) {
    this.frames = events.map(eventFrame);
  }

  /** Every frame, as one buffer shared by all the sockets it is written to (encoded once, not once per socket). */
  everything(): Buffer {
    this.all ??= Buffer.from(this.frames.join(""));
    return this.all;
  }

  framesFrom(first: number, types: readonly string[]): string {
    let chunk = "";
    for (let index = first; index < this.events.length; index++) {
      if (matchesTypes(types, this.events[index]!.type)) chunk += this.frames[index];
    }
    return chunk;
  }
}

/** One client's stream: replaying from the outbox, then live from its feed. */
class Subscriber {
  readonly userId: string;
  readonly apiKeyId: string | undefined;
  /** The last seq this subscriber has passed (written, or skipped by its type filter). */
  private position: number | undefined;
  private isLive = false;
  private closed = false;
  private readonly types: readonly string[];
  private readonly closeListeners: Array<() => void> = [];

  constructor(
    private readonly sink: SseStream,
    options: SubscribeOptions,
  ) {
    this.userId = options.userId;
    this.apiKeyId = options.apiKeyId;
    this.types = options.types;
    this.position = options.afterSeq;
    const closed = () => {
      if (this.closed) return;
      this.closed = true;
      for (const listener of this.closeListeners) listener();
    };
    sink.onClose(closed);
  }

  onClose(listener: () => void): void {
    this.closeListeners.push(listener);
  }

  /** Replays from the outbox until it has seen all the feed has, then goes live. */
  async catchUp(db: Db, feed: WorkspaceFeed): Promise<void> {
    this.isLive = false;
    this.position ??= feed.position;
    for (;;) {
      if (this.closed) return;
      const events = await readEvents(db, feed.workspaceId, { afterSeq: this.position, limit: READ_BATCH });
      await this.replay(events);
      if (this.closed) return;
      // Nothing in the outbox beyond what the feed has written (or will write next): from here on the feed serves it.
      if (events.length < READ_BATCH && feed.position <= this.position) {
        this.isLive = true;
        return;
      }
    }
  }

  /** Events the feed read, consecutive from its previous position. */
  live(batch: Batch, feed: WorkspaceFeed): void {
    if (!this.isLive || this.closed) return;
    const { events } = batch;
    const position = this.position ?? 0;
    const first = events.findIndex((event) => event.seq > position);
    if (first < 0) return;
    if (events[first]!.seq !== position + 1) {
      // Should the outbox ever hold a gap, this subscriber reads its way across it rather than skipping silently.
      void this.catchUp(feed.db, feed).catch(() => this.drop());
      return;
    }
    this.position = events.at(-1)!.seq;
    const chunk = first === 0 && this.types.length === 0 ? batch.everything() : batch.framesFrom(first, this.types);
    // Live frames are written whatever the client has read: one that lets them pile up is dropped.
    if (chunk.length > 0) this.sink.send(chunk);
  }

  drop(): void {
    this.sink.drop();
  }

  /** Replayed frames go out at the pace the client reads them. */
  private async replay(events: WorkspaceEvent[]): Promise<void> {
    let chunk = "";
    for (const event of events) {
      if (matchesTypes(this.types, event.type)) chunk += eventFrame(event);
      this.position = event.seq;
      if (chunk.length >= REPLAY_CHUNK_CHARS || event === events.at(-1)) {
        if (chunk !== "") await this.sink.sendPaced(chunk);
        chunk = "";
        if (this.closed) return;
      }
    }
  }
}
