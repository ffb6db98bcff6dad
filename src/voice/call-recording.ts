// Recording a call (CALL_RECORDING=true): both sides mixed into one 8 kHz 16-bit mono WAV, `<call id>.wav` under
// CALL_RECORDINGS_DIR. The caller's audio is laid down as it arrives; the assistant's where it started playing (after
// what was queued before it) and only as far as it played: barge-in cuts it where the carrier's marks say the caller
// stopped hearing it. On the audio path only the base64 payloads are kept; decoding, mixing and writing happen once
// the call is over, in slices that yield to the event loop, so no call's audio waits for a recording.
import { mkdir, open, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { base64DecodedLength } from "./call-session.ts";
import { mixToPcm, SAMPLE_RATE, ULAW_SILENCE, wavHeader } from "./wav.ts";

/** Work done between two yields to the event loop: 10 s of audio. */
const SLICE_SAMPLES = 10 * SAMPLE_RATE;

interface AssistantChunk {
  payload: string;
  /** Where it starts on the call's timeline, in samples (μ-law: one byte each). */
  at: number;
  /** Assistant audio sent before this chunk, in bytes (the count the carrier's marks are matched against). */
  sentBefore: number;
  /** Its bytes that played: all of them unless barge-in cut it. */
  played: number;
}

export const recordingPath = (directory: string, callId: string): string => join(directory, `${callId}.wav`);

export class CallRecording {
  private callerFrames: string[] = [];
  private callerSamples = 0;
  private chunks: AssistantChunk[] = [];
  private assistantEnd = 0;
  private assistantSent = 0;

  constructor(private readonly path: string) {}

  /** A frame of the caller's audio; frames arrive in real time, so their count is the call's clock. */
  caller(payload: string): void {
    this.callerFrames.push(payload);
    this.callerSamples += base64DecodedLength(payload);
  }

  /** A chunk of the assistant's audio sent to the carrier: it plays now, or after what is queued before it. */
  assistant(payload: string): void {
    const bytes = base64DecodedLength(payload);
    const at = Math.max(this.callerSamples, this.assistantEnd);
    this.chunks.push({ payload, at, sentBefore: this.assistantSent, played: bytes });
    this.assistantSent += bytes;
    this.assistantEnd = at + bytes;
  }

  /** Barge-in: of all the assistant audio ever sent, the first `playedBytes` played and the rest was cleared. */
  cut(playedBytes: number): void {
    while (this.chunks.length > 0 && this.chunks.at(-1)!.sentBefore >= playedBytes) this.chunks.pop();
    const last = this.chunks.at(-1);
    if (last) last.played = Math.min(last.played, playedBytes - last.sentBefore);
    this.assistantEnd = last ? last.at + last.played : 0;
  }

  /** Mixes both sides and writes the file (under a temporary name, then renamed, so readers see whole files only). */
  async write(): Promise<void> {
    const samples = Math.max(this.callerSamples, this.assistantEnd);
    const caller = await this.callerTrack();
    const assistant = await this.assistantTrack(samples);
    this.callerFrames = [];
    this.chunks = [];
    await mkdir(dirname(this.path), { recursive: true });
    const partial = `${this.path}.part`;
    const file = await open(partial, "w");
    try {
      await file.write(wavHeader(samples));
      for (let start = 0; start < samples; start += SLICE_SAMPLES) {
        const end = Math.min(samples, start + SLICE_SAMPLES);
        await file.write(mixToPcm(caller.subarray(start, end), assistant.subarray(start, end)));
        await yieldToEventLoop();
      }
      await file.close();
      await rename(partial, this.path);
    } catch (error) {
      await file.close().catch(() => {});
      await rm(partial, { force: true });
      throw error;
    }
  }

  private async callerTrack(): Promise<Buffer> {
    const track = Buffer.alloc(this.callerSamples, ULAW_SILENCE);
    let offset = 0;
    for (const [index, payload] of this.callerFrames.entries()) {
      offset += Buffer.from(payload, "base64").copy(track, offset);
      if (index % (SLICE_SAMPLES / 160) === 0) await yieldToEventLoop();
    }
    return track;
  }

  private async assistantTrack(samples: number): Promise<Buffer> {
    const track = Buffer.alloc(samples, ULAW_SILENCE);
    for (const [index, chunk] of this.chunks.entries()) {
      Buffer.from(chunk.payload, "base64").copy(track, chunk.at, 0, chunk.played);
      if (index % 500 === 0) await yieldToEventLoop();
    }
    return track;
  }
}

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
