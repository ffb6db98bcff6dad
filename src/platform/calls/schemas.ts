import { z } from "zod";
import { CALL_DIRECTIONS, CALL_SPEAKERS, CALL_STATUSES } from "../../db/enums.ts";

export const callSummarySchema = z
  .object({
    id: z.string(),
    call_sid: z.string().nullable().describe("The carrier's id of the call (Twilio CallSid)"),
    started_at: z.string(),
    ended_at: z.string().nullable().describe("Null while the call is going on"),
    direction: z
      .enum(CALL_DIRECTIONS)
      .describe("inbound: the carrier's webhook; outbound: POST /calls on the call server"),
    status: z.enum(CALL_STATUSES).describe("The carrier's status of the call"),
    answered_by: z
      .string()
      .nullable()
      .describe("An outbound call's answering-machine verdict: human, unknown, machine_end_beep, …"),
    duration_s: z.number().int().nullable().describe("Length in seconds, once the call is over"),
    transcript_count: z.number().int().describe("Transcript lines stored so far"),
  })
  .meta({ id: "CallSummary" });

const transcriptLineSchema = z
  .object({
    seq: z.number().int(),
    speaker: z.enum(CALL_SPEAKERS),
    text: z.string(),
    created_at: z.string(),
  })
  .meta({ id: "CallTranscriptLine" });

export const callSchema = callSummarySchema
  .extend({
    transcript: z.array(transcriptLineSchema).describe("Both sides of the call, in the order spoken"),
    has_recording: z
      .boolean()
      .describe("Whether GET …/calls/{call_id}/recording has the call's audio (a call server with CALL_RECORDING)"),
  })
  .meta({ id: "Call" });

export const callParams = z.object({ ws_id: z.string(), call_id: z.string() });
