// The seed's session configuration, in the shape the realtime provider speaks.
// Beta is the seed's flat shape, exactly. GA nests the same settings under `audio`; GA has no `temperature`
// and its `output_modalities` takes one value, where ["audio"] means audio plus its transcript (the seed's text+audio).

export type RealtimeApiVersion = "ga" | "beta";

export interface RealtimeToolDefinition {
  type: "function";
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

const turnDetection = { type: "server_vad", threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 200 };
/** Caller speech is transcribed so both sides of the call can be stored. */
const TRANSCRIPTION_MODEL = "whisper-1";

/** `instructions` (a phone agent's) are added to the seed's configuration when given. */
export function sessionUpdate(
  apiVersion: RealtimeApiVersion,
  tools: RealtimeToolDefinition[],
  instructions?: string,
): Record<string, unknown> {
  const spoken = instructions ? { instructions } : {};
  if (apiVersion === "beta") {
    return {
      type: "session.update",
      session: {
        ...spoken,
        turn_detection: { ...turnDetection },
        input_audio_format: "g711_ulaw",
        output_audio_format: "g711_ulaw",
        voice: "alloy",
        tools,
        tool_choice: "auto",
        modalities: ["text", "audio"],
        temperature: 0.8,
      },
    };
  }
  return {
    type: "session.update",
    session: {
      type: "realtime",
      ...spoken,
      output_modalities: ["audio"],
      audio: {
        input: { format: { type: "audio/pcmu" }, turn_detection: { ...turnDetection } },
        output: { format: { type: "audio/pcmu" }, voice: "alloy" },
      },
      tools,
      tool_choice: "auto",
    },
  };
}

/** Sent right after the seed's configuration, which leaves it out, so the caller's side of the transcript exists. */
export function transcriptionUpdate(apiVersion: RealtimeApiVersion): Record<string, unknown> {
  if (apiVersion === "beta") {
    return { type: "session.update", session: { input_audio_transcription: { model: TRANSCRIPTION_MODEL } } };
  }
  return {
    type: "session.update",
    session: { type: "realtime", audio: { input: { transcription: { model: TRANSCRIPTION_MODEL } } } },
  };
}

/** A GA provider's session carries `type` or an `audio` object; the beta shape has neither. */
export function apiVersionOfSession(session: unknown): RealtimeApiVersion {
  if (typeof session !== "object" || session === null) return "beta";
  const fields = session as Record<string, unknown>;
  const hasAudioObject = typeof fields.audio === "object" && fields.audio !== null;
  return typeof fields.type === "string" || hasAudioObject ? "ga" : "beta";
}
