// Call-session stage: what the caller has actually heard. Every audio chunk sent to the carrier is followed by a
// mark; the carrier echoes a mark once the audio before it has played, so acknowledged marks give the played length.

/** μ-law at 8 kHz: one byte per sample, 8 bytes per millisecond. */
const ULAW_BYTES_PER_MS = 8;

interface SentMark {
  name: string;
  itemId: string;
  /** Bytes of this item's audio sent up to and including the chunk before this mark. */
  itemBytesEnd: number;
  /** Bytes of all audio sent up to and including the chunk before this mark. */
  totalBytesEnd: number;
  /** Bytes of the chunk before this mark. */
  chunkBytes: number;
}

interface Interruption {
  itemId: string;
  audioEndMs: number;
  /** Of all the audio ever sent, how many bytes played before the cut. */
  playedBytes: number;
}

export function base64DecodedLength(base64: string): number {
  if (base64.length === 0) return 0;
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  return (base64.length / 4) * 3 - padding;
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
  private drainWaiters: Array<() => void> = [];

  /** Records an audio chunk sent to the carrier; returns the name of the mark to send after it. */
  audioSent(itemId: string, base64Payload: string): string {
    if (itemId !== this.currentItemId) {
      this.currentItemId = itemId;
      this.currentItemBytes = 0;
    }
    const bytes = base64DecodedLength(base64Payload);
    this.currentItemBytes += bytes;
    this.totalBytes += bytes;
    const name = `${++this.markCount}`;
    this.pending.push({
      name,
      itemId,
      itemBytesEnd: this.currentItemBytes,
      totalBytesEnd: this.totalBytes,
      chunkBytes: bytes,
    });
    return name;
  }

  /** The carrier has played everything up to this mark; unknown names (marks of cleared audio) are ignored. */
  markAcknowledged(name: string): void {
    let index = this.head;
    while (index < this.pending.length && this.pending[index]!.name !== name) index++;
    if (index === this.pending.length) return;
    this.lastAcknowledged = this.pending[index];
    this.head = index + 1;
    if (this.head > 256 && this.head * 2 > this.pending.length) {
      this.pending = this.pending.slice(this.head);
      this.head = 0;
    }
    if (!this.isPlaying) this.wakeDrainWaiters();
  }

  get isPlaying(): boolean {
    return this.head < this.pending.length;
  }

  /**
   * The caller started talking: forget the queued audio and say where to cut the item being heard.
   * Undefined when nothing is playing.
   */
  interrupt(): Interruption | undefined {
    if (!this.isPlaying) return undefined;
    const playing = this.pending[this.head]!;
    const heard = this.lastAcknowledged?.itemId === playing.itemId ? this.lastAcknowledged.itemBytesEnd : 0;
    const playedBytes = this.lastAcknowledged?.totalBytesEnd ?? playing.totalBytesEnd - playing.chunkBytes;
    this.pending = [];
    this.head = 0;
    this.lastAcknowledged = undefined;
    this.currentItemId = undefined;
    this.currentItemBytes = 0;
    this.wakeDrainWaiters();
    return { itemId: playing.itemId, audioEndMs: Math.floor(heard / ULAW_BYTES_PER_MS), playedBytes };
  }

  /** How long the audio sent and not yet acknowledged lasts. */
  get unplayedMs(): number {
    if (!this.isPlaying) return 0;
    const first = this.pending[this.head]!;
    return Math.ceil((this.totalBytes - first.totalBytesEnd + first.chunkBytes) / ULAW_BYTES_PER_MS);
  }

  /**
   * Resolves once all audio sent so far has played (its last mark is back), or the caller cut it off, or the call
   * ended; a carrier that stops echoing marks is given the audio's length plus `graceMs`.
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
