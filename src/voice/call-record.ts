// What is kept of a call: its row in `calls` and both sides of the transcript in `call_transcripts`.
// Writes run in order on one promise chain per call, off the audio path; a failed write is logged, never thrown.
import type { FastifyBaseLogger } from "fastify";
import type { Db } from "../db/index.ts";
import { newId, now } from "../db/values.ts";

type Speaker = "caller" | "assistant";

export interface TranscriptLine {
  speaker: Speaker;
  text: string;
}

export class CallRecord {
  readonly callId: string;
  /** Both sides of the conversation so far, in order (what is also written to `call_transcripts`). */
  readonly lines: TranscriptLine[] = [];
  private seq = 0;
  private readonly startedMs: number;
  private writes: Promise<void>;

  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
    callSid: string,
    streamSid: string,
    workspaceId: string | null = null,
    /** An outbound call's row, made when it was placed: its stream is recorded there, its status kept by callbacks. */
    private readonly outboundCallId?: string,
  ) {
    this.callId = outboundCallId ?? newId();
    const startedAt = now();
    this.startedMs = Date.now();
    this.writes = this.write("start the call record", () =>
      outboundCallId
        ? this.db.updateTable("calls").set({ stream_sid: streamSid }).where("id", "=", outboundCallId).execute()
        : this.db
            .insertInto("calls")
            .values({
              id: this.callId,
              workspace_id: workspaceId,
              call_sid: callSid || null,
              stream_sid: streamSid,
              started_at: startedAt,
              ended_at: null,
              direction: "inbound",
              status: "in-progress",
            })
            .execute(),
    );
  }

  addTranscript(speaker: Speaker, text: string): void {
    this.lines.push({ speaker, text });
    const seq = ++this.seq;
    const createdAt = now();
    this.writes = this.writes.then(() =>
      this.write("store a transcript line", () =>
        this.db
          .insertInto("call_transcripts")
          .values({ id: newId(), call_id: this.callId, seq, speaker, text, created_at: createdAt })
          .execute(),
      ),
    );
  }

  /** Marks the call ended; resolves once every write of this call is done. */
  end(): Promise<void> {
    const endedAt = now();
    this.writes = this.writes.then(() =>
      this.write("end the call record", () =>
        // An outbound call's status and length come from the carrier's status callbacks; its end, when none came.
        this.outboundCallId
          ? this.db
              .updateTable("calls")
              .set({ ended_at: endedAt })
              .where("id", "=", this.callId)
              .where("ended_at", "is", null)
              .execute()
          : this.db
              .updateTable("calls")
              .set({
                ended_at: endedAt,
                status: "completed",
                duration_s: Math.round((Date.now() - this.startedMs) / 1000),
              })
              .where("id", "=", this.callId)
              .execute(),
      ),
    );
    return this.writes;
  }

  private async write(what: string, query: () => Promise<unknown>): Promise<void> {
    try {
      await query();
    } catch (error) {
      this.log.error({ callId: this.callId, err: error }, `could not ${what}`);
    }
  }
}
