// Call-session stage: what the caller has actually heard. The carrier echoes a mark once the audio before it has
// played, so acknowledged marks give the played length. Marks are coalesced (voice-phone.md §5): one mark closes a
// span of consecutive chunks of one item once the span holds MARK_SPACING_BYTES of audio, so a stream of 20 ms
// chunks costs a mark per 60 ms instead of one per chunk, and the played length is known to within one span.

/** μ-law at 8 kHz: one byte per sample, 8 bytes per millisecond. */
const ULAW_BYTES_PER_MS = 8;
/** The audio a mark may close: 50 ms, how far off a barge-in's cut may be. A chunk this long gets its own mark. */
export const MARK_SPACING_BYTES = 50 * ULAW_BYTES_PER_MS;

interface SentMark {
  name: string;
  itemId: string;
  /** Bytes of this item's audio sent up to the end of this mark's span. */
  itemBytesEnd: number;
  /** Bytes of all audio sent up to the end of this mark's span. */
  totalBytesEnd: number;
  /** Bytes of the span this mark closes (the chunks sent since the mark before). */
  spanBytes: number;
}

interface Interruption {
  itemId: string;
  audioEndMs: number;
  /** Of all the audio ever sent, how many bytes played before the cut. */
  playedBytes: number;
}

export function base64DecodedLength(base64: string): number {
  const length = base64.length;
  if (length === 0) return 0;
  // charCodeAt, not endsWith: this runs for every chunk and allocates nothing.
  const padding = base64.charCodeAt(length - 1) !== 61 ? 0 : base64.charCodeAt(length - 2) === 61 ? 2 : 1;
  return (length / 4) * 3 - padding;
}

export class CallSession {
  /** Marks sent and not yet acknowledged, oldest first (a queue read from `head`). */
  private pending: SentMark[] = [];
  private head = 0;
  private lastAcknowledged: SentMark | undefined;
  private currentItemId: string | undefined;
  private currentItemBytes = 0;
  private markCount = 0;
  private totalBytes = 0;
  /** Bytes sent since the last mark: the open span, which the next mark closes. */
  private unmarkedBytes = 0;
  private drainWaiters: Array<() => void> = [];

  /** Whether a chunk of `itemId` would start a new item while audio of the last one is still unmarked. */
  endsSpan(itemId: string): boolean {
    return itemId !== this.currentItemId && this.unmarkedBytes > 0;
  }

  /**
   * Records an audio chunk sent to the carrier; returns the name of the mark to send after it, or undefined when the
   * chunk joins the open span (closed by a later chunk or by `closeSpan`). A new item closes the open span first:
   * call `closeSpan` before sending a chunk for which `endsSpan` is true.
   */
  audioSent(itemId: string, bytes: number): string | undefined {
    if (itemId !== this.currentItemId) {
      this.currentItemId = itemId;
      this.currentItemBytes = 0;
    }
    this.currentItemBytes += bytes;
    this.totalBytes += bytes;
    this.unmarkedBytes += bytes;
    return this.unmarkedBytes >= MARK_SPACING_BYTES ? this.closeSpan() : undefined;
  }

  /** True while some audio sent has no mark after it yet. */
  get hasOpenSpan(): boolean {
    return this.unmarkedBytes > 0;
  }

  /** The name of a mark closing the open span, to send now; undefined when every chunk sent is already marked. */
  closeSpan(): string | undefined {
    if (this.unmarkedBytes === 0 || this.currentItemId === undefined) return undefined;
    const name = `${++this.markCount}`;
    this.pending.push({
      name,
      itemId: this.currentItemId,
      itemBytesEnd: this.currentItemBytes,
      totalBytesEnd: this.totalBytes,
      spanBytes: this.unmarkedBytes,
    });
    this.unmarkedBytes = 0;
    return name;
  }

  /** The carrier has played everything up to this mark; unknown names (marks of cleared audio) are ignored. */
  markAcknowledged(name: string): void {
    let index = this.head;
    while (index < this.pending.length && this.pending[index]!.name !== name) index++;
    if (index === this.pending.length) return;
    this.lastAcknowledged = this.pending[index];
    this.head = index + 1;
    // Acknowledged marks are let go at once when none is left waiting (the usual case while audio streams in real
    // time), so they die young instead of being kept, and promoted, for hundreds of marks.
    if (this.head === this.pending.length) {
      this.pending.length = 0;
      this.head = 0;
    } else if (this.head > 256 && this.head * 2 > this.pending.length) {
      this.pending = this.pending.slice(this.head);
      this.head = 0;
    }
    if (!this.isPlaying) this.wakeDrainWaiters();
  }

  /** Some audio sent has not been acknowledged as played (an open span counts: nothing says it has played). */
  get isPlaying(): boolean {
    return this.head < this.pending.length || this.unmarkedBytes > 0;
  }

  /**
   * The caller started talking: forget the queued audio and say where to cut the item being heard.
   * Undefined when nothing is playing.
   */
  interrupt(): Interruption | undefined {
    if (!this.isPlaying) return undefined;
    // The first span not acknowledged: a pending mark's, else the open span.
    const first = this.pending[this.head];
    const itemId = first ? first.itemId : this.currentItemId!;
    const spanStart = first ? first.totalBytesEnd - first.spanBytes : this.totalBytes - this.unmarkedBytes;
    const heard = this.lastAcknowledged?.itemId === itemId ? this.lastAcknowledged.itemBytesEnd : 0;
    const playedBytes = this.lastAcknowledged?.totalBytesEnd ?? spanStart;
    this.pending = [];
    this.head = 0;
    this.lastAcknowledged = undefined;
    this.currentItemId = undefined;
    this.currentItemBytes = 0;
    this.unmarkedBytes = 0;
    this.wakeDrainWaiters();
    return { itemId, audioEndMs: Math.floor(heard / ULAW_BYTES_PER_MS), playedBytes };
  }

  /** How long the audio sent and not yet acknowledged lasts. */
  get unplayedMs(): number {
    if (!this.isPlaying) return 0;
    const first = this.pending[this.head];
    const unplayed = first ? this.totalBytes - first.totalBytesEnd + first.spanBytes : this.unmarkedBytes;
    return Math.ceil(unplayed / ULAW_BYTES_PER_MS);
  }

  /**
   * Resolves once all audio sent so far has played (its last mark is back), or the caller cut it off, or the call
   * ended; a carrier that stops echoing marks is given the audio's length plus `graceMs`. The open span must have
   * been closed (its mark sent) first, or only a barge-in or the timeout ends the wait.
   */
  waitUntilPlayed(graceMs: number): Promise<void> {
    if (!this.isPlaying) return Promise.resolve();
    const timeoutMs = this.unplayedMs + graceMs;
    return new Promise((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.drainWaiters.push(done);
    });
  }

  /** The call is over: nobody waits for audio any more. */
  release(): void {
    this.wakeDrainWaiters();
  }

  private wakeDrainWaiters(): void {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const wake of waiters) wake();
  }
}
