// The inbox stream: `inbox.item` frames, each only to its person's streams. A signal (items.ts; every process hears
// it, PostgreSQL at commit) names the person and the item; the process holding that person's streams reads the item
// from the table, still only while they are a member of its workspace, and writes it to each of their streams (a
// stream opened with an API key hears only the key's workspace). Items read (in another tab, or for everyone by a
// decision) send `inbox.read` with their workspace, so every open view asks its count again.
import { Coalescer } from "../db/coalesce.ts";
import type { Db } from "../db/index.ts";
import type { Signals } from "../db/signals.ts";
import { KeepAlives, type SseStream, sseFrame } from "../http/sse.ts";
import { INBOX_CHANNEL } from "./items.ts";
import type { InboxItem } from "./reads.ts";

const READ_BATCH = 200;
/** Delivered ids a person's feed remembers, so a re-read after missed signals sends nothing twice. */
const REMEMBERED_IDS = 1_000;
/** After missed signals, items this much older than the newest one delivered are read again (commits lag). */
const RESYNC_WINDOW_MS = 60_000;

export interface InboxViewer {
  userId: string;
  /** Set for an API key's stream: only that workspace's items. */
  boundWorkspaceId?: string | undefined;
}

export const inboxFrame = (item: InboxItem): string => sseFrame({ event: "inbox.item", data: JSON.stringify(item) });
const readFrame = (workspaceId: string): string =>
  sseFrame({ event: "inbox.read", data: JSON.stringify({ workspace_id: workspaceId }) });
const READ_PREFIX = "read:";

export class InboxStreamHub {
  private readonly feeds = new Map<string, PersonFeed>();
  private readonly keepAlives: KeepAlives;
  private readonly stopSignals: () => void;
  private closed = false;

  constructor(
    private readonly db: Db,
    signals: Signals,
    keepAliveMs: number,
    private readonly onError: (error: unknown) => void,
  ) {
    this.keepAlives = new KeepAlives(keepAliveMs, ": keepalive\n\n");
    this.stopSignals = signals.on(INBOX_CHANNEL, (payload) => {
      const colon = payload.indexOf(":");
      if (colon <= 0) return;
      const feed = this.feeds.get(payload.slice(0, colon));
      const rest = payload.slice(colon + 1);
      if (rest.startsWith(READ_PREFIX)) feed?.read(rest.slice(READ_PREFIX.length));
      else feed?.hint(rest);
    });
    signals.onResync(() => {
      for (const feed of this.feeds.values()) feed.resync();
    });
  }

  /** Streams the person's new items to `sink` until either side ends it. */
  subscribe(sink: SseStream, viewer: InboxViewer): void {
    if (this.closed) {
      sink.drop();
      return;
    }
    this.keepAlives.add(sink);
    let feed = this.feeds.get(viewer.userId);
    if (!feed) {
      feed = new PersonFeed(this.db, viewer.userId, this.onError);
      this.feeds.set(viewer.userId, feed);
    }
    const held = feed;
    held.add(sink, viewer);
    sink.onClose(() => {
      held.remove(sink);
      if (held.size === 0 && this.feeds.get(viewer.userId) === held) this.feeds.delete(viewer.userId);
    });
  }

  /** Streams open in this process, for tests and metrics. */
  get subscriberCount(): number {
    let count = 0;
    for (const feed of this.feeds.values()) count += feed.size;
    return count;
  }

  /** Ends every stream (shutdown); clients reconnect elsewhere and read the list again. */
  close(): void {
    this.closed = true;
    this.stopSignals();
    this.keepAlives.close();
    for (const feed of this.feeds.values()) feed.closeAll();
    this.feeds.clear();
  }
}

/** One person's streams in this process, and the items signalled for them that are still to be read. */
class PersonFeed {
  private readonly streams = new Map<SseStream, InboxViewer>();
  private readonly pending = new Set<string>();
  private readonly delivered = new Set<string>();
  private newestDelivered: string | undefined;
  private readonly openedAt = new Date().toISOString().slice(0, 23);
  private resyncWanted = false;
  private readonly reads: Coalescer;

  constructor(
    private readonly db: Db,
    private readonly userId: string,
    onError: (error: unknown) => void,
  ) {
    this.reads = new Coalescer(() => this.readPending(), onError);
  }

  get size(): number {
    return this.streams.size;
  }

  add(sink: SseStream, viewer: InboxViewer): void {
    this.streams.set(sink, viewer);
  }

  remove(sink: SseStream): void {
    this.streams.delete(sink);
  }

  hint(itemId: string): void {
    this.pending.add(itemId);
    this.reads.run();
  }

  /** Some of the person's items in `workspaceId` were read: their views ask again. Nothing to read from the table. */
  read(workspaceId: string): void {
    const frame = readFrame(workspaceId);
    for (const [sink, viewer] of this.streams) {
      if (viewer.boundWorkspaceId === undefined || viewer.boundWorkspaceId === workspaceId) sink.send(frame);
    }
  }

  /** Signals may have been missed: the recent items are read again (those already sent are skipped). */
  resync(): void {
    this.resyncWanted = true;
    this.reads.run();
  }

  closeAll(): void {
    for (const sink of [...this.streams.keys()]) sink.end();
    this.streams.clear();
  }

  private async readPending(): Promise<void> {
    if (this.resyncWanted) {
      this.resyncWanted = false;
      const since = this.newestDelivered
        ? new Date(Date.parse(`${this.newestDelivered}Z`) - RESYNC_WINDOW_MS).toISOString().slice(0, 23)
        : this.openedAt;
      this.deliver(await this.visibleItems({ since }));
    }
    while (this.pending.size > 0) {
      const ids = [...this.pending].slice(0, READ_BATCH);
      for (const id of ids) this.pending.delete(id);
      this.deliver(await this.visibleItems({ ids }));
    }
  }

  /** The person's items named (or created since), oldest first, of workspaces they are still a member of. */
  private visibleItems(which: { ids: string[] } | { since: string }): Promise<InboxItem[]> {
    return this.db
      .selectFrom("inbox_items")
      .innerJoin("members", (join) =>
        join
          .onRef("members.workspace_id", "=", "inbox_items.workspace_id")
          .onRef("members.user_id", "=", "inbox_items.user_id"),
      )
      .select([
        "inbox_items.id",
        "inbox_items.kind",
        "inbox_items.workspace_id",
        "inbox_items.issue_id",
        "inbox_items.task_id",
        "inbox_items.title",
        "inbox_items.body",
        "inbox_items.created_at",
        "inbox_items.read_at",
      ])
      .where("inbox_items.user_id", "=", this.userId)
      .$if("ids" in which, (query) => query.where("inbox_items.id", "in", (which as { ids: string[] }).ids))
      .$if("since" in which, (query) => query.where("inbox_items.created_at", ">=", (which as { since: string }).since))
      .orderBy("inbox_items.created_at")
      .orderBy("inbox_items.id")
      .limit(READ_BATCH)
      .execute();
  }

  private deliver(items: InboxItem[]): void {
    for (const item of items) {
      if (this.delivered.has(item.id)) continue;
      this.remember(item);
      const frame = inboxFrame(item);
      for (const [sink, viewer] of this.streams) {
        if (viewer.boundWorkspaceId === undefined || viewer.boundWorkspaceId === item.workspace_id) sink.send(frame);
      }
    }
  }

  private remember(item: InboxItem): void {
    this.delivered.add(item.id);
    if (this.delivered.size > REMEMBERED_IDS) this.delivered.delete(this.delivered.values().next().value!);
    if (!this.newestDelivered || item.created_at > this.newestDelivered) this.newestDelivered = item.created_at;
  }
}
