// The audio path of one call, the hot path: the caller's frames to the provider, the model's chunks to the carrier with
// coalesced marks (call-session.ts), and barge-in. Nothing here allocates per frame beyond the frames themselves.
import type { CallRecording } from "./call-recording.ts";
import { base64DecodedLength, CallSession } from "./call-session.ts";
import type { CarrierStream } from "./carrier-codec.ts";
import type { ProviderClient } from "./provider-client.ts";

/**
 * An open span gets its mark this long after it opened if no chunk has closed it by then: the model paused or stopped
 * without saying so. Longer than a span takes to fill when audio streams in real time, so it never fires then.
 */
const SPAN_TIMEOUT_MS = 100;

export class CallAudio {
  readonly session = new CallSession();
  /** Closes an open span that no chunk closed; created once, re-armed with refresh() (no timer per span). */
  private spanTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly carrier: CarrierStream,
    private readonly provider: ProviderClient,
    private readonly recording: CallRecording | undefined,
  ) {}

  /** A frame of the caller's audio (base64 μ-law), checked by the carrier codec. */
  fromCaller(payload: string): void {
    this.provider.appendAudio(payload);
    this.recording?.caller(payload);
  }

  /** A chunk of the model's audio: played to the caller, with a mark when it closes a span. */
  fromModel(itemId: string, payload: string): void {
    const session = this.session;
    const markBefore = session.endsSpan(itemId) ? session.closeSpan() : undefined;
    const opens = !session.hasOpenSpan;
    const markAfter = session.audioSent(itemId, base64DecodedLength(payload));
    if (markBefore === undefined && markAfter === undefined) this.carrier.sendMedia(payload);
    else this.carrier.sendMarkedMedia(markBefore, payload, markAfter);
    if (opens && markAfter === undefined) this.armSpanTimer();
    this.recording?.assistant(payload);
  }

  /** Sends the mark for the audio sent since the last one, if any: the model's audio has ended for now. */
  closeSpan(): void {
    const name = this.session.closeSpan();
    if (name !== undefined) this.carrier.sendMark(name);
  }

  /** Resolves once every chunk sent so far has played (see CallSession.waitUntilPlayed). */
  untilPlayed(graceMs: number): Promise<void> {
    this.closeSpan();
    return this.session.waitUntilPlayed(graceMs);
  }

  /** The caller started talking over the model: clear the carrier's queue and cut the item where the caller was. */
  bargeIn(): void {
    const cut = this.session.interrupt();
    if (!cut) return;
    this.carrier.sendClear();
    this.provider.truncate(cut.itemId, cut.audioEndMs);
    this.recording?.cut(cut.playedBytes);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.spanTimer);
    this.session.release();
  }

  private armSpanTimer(): void {
    if (this.stopped) return;
    if (this.spanTimer) this.spanTimer.refresh();
    else this.spanTimer = setTimeout(() => this.closeSpan(), SPAN_TIMEOUT_MS);
  }
}
