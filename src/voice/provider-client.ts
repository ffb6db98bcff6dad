// Provider stage: one WebSocket to the realtime speech provider, speaking the GA or the beta apiVersion.
// Incoming events of both dialects are folded into one set of typed events; audio is passed through as base64.
// An audio delta in OpenAI's shape is recognised whole by one pattern and cut out of the text, with no JSON.parse: it
// is the hot path. Everything else is parsed.
import WebSocket, { type RawData } from "ws";
import {
  apiVersionOfSession,
  type RealtimeApiVersion,
  type RealtimeToolDefinition,
  sessionUpdate,
  transcriptionUpdate,
} from "./session-config.ts";

export interface FunctionCall {
  callId: string;
  name: string;
  /** JSON text as the model wrote it; may be invalid. */
  arguments: string;
}

interface ProviderEvents {
  /** The session configuration has been sent; audio now flows. */
  ready(apiVersion: RealtimeApiVersion): void;
  /** `delta`: base64 (a delta that is not is dropped), safe to splice into JSON. */
  audio(itemId: string, delta: string): void;
  /** The model has finished an item's audio (more may follow for another item). */
  audioDone(): void;
  speechStarted(): void;
  callerTranscript(text: string): void;
  assistantTranscript(text: string): void;
  functionCallDone(call: FunctionCall): void;
  /** `status`: the response's (completed, cancelled, …). */
  responseDone(calls: FunctionCall[], status: string): void;
  /** An `error` event: the provider reports a problem but keeps the session. */
  providerError(message: string): void;
  /** The connection failed or the provider closed it (never called after our own close()). */
  closed(reason: string): void;
}

interface ProviderOptions {
  url: string;
  apiKey: string;
  apiVersion: "auto" | RealtimeApiVersion;
  tools: RealtimeToolDefinition[];
  /** The session's instructions (a phone agent's); unset, the provider's defaults. */
  instructions?: string | undefined;
  /** How long to wait for `session.created` when the apiVersion is detected from it. */
  sessionCreatedTimeoutMs?: number;
}

/** Audio kept while the provider session is being set up: 10 s of 20 ms frames. */
const MAX_PENDING_FRAMES = 500;

type ProviderMessage = Record<string, unknown> & { type?: unknown };

const text = (value: unknown): string => (typeof value === "string" ? value : "");

/**
 * A whole audio delta of either dialect: string ids and integer indexes, then the base64 delta last, as OpenAI writes
 * it. A message that matches is valid JSON, and the keys below occur in it only as keys.
 */
const AUDIO_DELTA =
  /^\{"type":"response\.(?:output_)?audio\.delta"(?:,"[a-z_]+":(?:"[A-Za-z0-9_-]*"|\d+))*,"delta":"[A-Za-z0-9+/]*={0,2}"\}$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const DELTA_KEY = '"delta":"';
const ITEM_ID_KEY = '"item_id":"';
/** An audio append is built as bytes around the base64 payload (ASCII: one byte per character). */
const APPEND_HEAD = Buffer.from('{"type":"input_audio_buffer.append","audio":"');
const APPEND_TAIL = Buffer.from('"}');
/** A Buffer is sent as text, not as ws's default binary frame: the provider reads JSON text. */
const AS_TEXT = { binary: false };

export class ProviderClient {
  private readonly socket: WebSocket;
  private apiVersion: RealtimeApiVersion | undefined;
  private pendingAudio: string[] = [];
  private pendingControl: Record<string, unknown>[] = [];
  private failure: string | undefined;
  private closedByUs = false;
  private sessionTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: ProviderOptions,
    private readonly events: ProviderEvents,
  ) {
    const headers: Record<string, string> = { Authorization: `Bearer ${options.apiKey}` };
    if (options.apiVersion === "beta") headers["OpenAI-Beta"] = "realtime=v1";
    this.socket = new WebSocket(options.url, { headers, perMessageDeflate: false, handshakeTimeout: 10_000 });
    this.socket.on("open", () => this.opened());
    this.socket.on("message", (data: RawData) => this.receive(data));
    this.socket.on("unexpected-response", (_request, response) => {
      this.failure = `refused the connection (HTTP ${response.statusCode})`;
      response.resume();
      this.socket.terminate();
    });
    this.socket.on("error", (error: Error) => {
      this.failure ??= `connection failed (${error.message})`;
    });
    this.socket.on("close", (code: number) => {
      clearTimeout(this.sessionTimer);
      if (!this.closedByUs) this.events.closed(this.failure ?? `closed the connection (code ${code})`);
    });
  }

  appendAudio(payload: string): void {
    if (this.apiVersion === undefined) {
      if (this.pendingAudio.length >= MAX_PENDING_FRAMES) this.pendingAudio.shift();
      this.pendingAudio.push(payload);
      return;
    }
    // The carrier codec only lets base64 through, so the payload needs no escaping. Given bytes, ws masks them into
    // one frame buffer and writes it once; given a string, it writes a header and the data as a corked pair, which
    // costs more allocation and stream work per frame (the hot path: 50 appends a second per call).
    const message = Buffer.allocUnsafe(APPEND_HEAD.length + payload.length + APPEND_TAIL.length);
    APPEND_HEAD.copy(message, 0);
    message.write(payload, APPEND_HEAD.length, "latin1");
    APPEND_TAIL.copy(message, APPEND_HEAD.length + payload.length);
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(message, AS_TEXT);
  }

  truncate(itemId: string, audioEndMs: number): void {
    this.sendJson({ type: "conversation.item.truncate", item_id: itemId, content_index: 0, audio_end_ms: audioEndMs });
  }

  sendFunctionOutput(callId: string, output: string): void {
    this.sendJson({
      type: "conversation.item.create",
      item: { type: "function_call_output", call_id: callId, output },
    });
  }

  /** Text the model reads as the caller's turn (a key press), e.g. "The caller pressed 5.". */
  sendUserText(text: string): void {
    this.sendControl({
      type: "conversation.item.create",
      item: { type: "message", role: "user", content: [{ type: "input_text", text }] },
    });
  }

  /** Asks the model to speak; `instructions` apply to this response only (a greeting, a voicemail message). */
  createResponse(instructions?: string): void {
    this.sendControl(
      instructions === undefined
        ? { type: "response.create" }
        : { type: "response.create", response: { instructions } },
    );
  }

  /** Stops the response being generated, if any (a provider with none reports an error, which is only logged). */
  cancelResponse(): void {
    this.sendControl({ type: "response.cancel" });
  }

  /** Sent once the session is configured, so nothing reaches the model ahead of its instructions and tools. */
  private sendControl(message: Record<string, unknown>): void {
    if (this.apiVersion === undefined) this.pendingControl.push(message);
    else this.sendJson(message);
  }

  close(): void {
    this.closedByUs = true;
    clearTimeout(this.sessionTimer);
    if (this.socket.readyState === WebSocket.OPEN) this.socket.close(1000, "call ended");
    else if (this.socket.readyState === WebSocket.CONNECTING) this.socket.terminate();
  }

  private opened(): void {
    if (this.options.apiVersion !== "auto") {
      this.configure(this.options.apiVersion);
      return;
    }
    this.sessionTimer = setTimeout(() => {
      this.failure = "sent no session.created";
      this.socket.close(1002, "no session.created");
    }, this.options.sessionCreatedTimeoutMs ?? 10_000);
  }

  private configure(apiVersion: RealtimeApiVersion): void {
    clearTimeout(this.sessionTimer);
    this.apiVersion = apiVersion;
    this.sendJson(sessionUpdate(apiVersion, this.options.tools, this.options.instructions));
    this.sendJson(transcriptionUpdate(apiVersion));
    const pending = this.pendingAudio;
    this.pendingAudio = [];
    for (const payload of pending) this.appendAudio(payload);
    const control = this.pendingControl;
    this.pendingControl = [];
    for (const message of control) this.sendJson(message);
    this.events.ready(apiVersion);
  }

  private send(message: string): void {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(message);
  }

  private sendJson(message: Record<string, unknown>): void {
    this.send(JSON.stringify(message));
  }

  private receive(data: RawData): void {
    const raw = data.toString();
    if (AUDIO_DELTA.test(raw)) {
      this.receiveAudio(raw);
      return;
    }
    let message: ProviderMessage;
    try {
      const parsed: unknown = JSON.parse(raw);
      if (typeof parsed !== "object" || parsed === null) return;
      message = parsed as ProviderMessage;
    } catch {
      return;
    }
    switch (message.type) {
      case "response.output_audio.delta":
      case "response.audio.delta":
        if (typeof message.delta === "string" && BASE64.test(message.delta)) {
          this.events.audio(text(message.item_id), message.delta);
        }
        return;
      case "response.output_audio.done":
      case "response.audio.done":
        this.events.audioDone();
        return;
      case "input_audio_buffer.speech_started":
        this.events.speechStarted();
        return;
      case "session.created":
        if (this.apiVersion === undefined && this.options.apiVersion === "auto") {
          this.configure(apiVersionOfSession(message.session));
        }
        return;
      case "conversation.item.input_audio_transcription.completed":
        if (text(message.transcript)) this.events.callerTranscript(text(message.transcript));
        return;
      case "response.output_audio_transcript.done":
      case "response.audio_transcript.done":
        if (text(message.transcript)) this.events.assistantTranscript(text(message.transcript));
        return;
      case "response.output_item.done": {
        const call = functionCallOf(message.item);
        if (call) this.events.functionCallDone(call);
        return;
      }
      case "response.done": {
        const response = (message.response ?? {}) as Record<string, unknown>;
        const output = Array.isArray(response.output) ? response.output : [];
        const calls = output.map(functionCallOf).filter((call): call is FunctionCall => call !== undefined);
        this.events.responseDone(calls, text(response.status));
        return;
      }
      case "error": {
        const error = (message.error ?? {}) as Record<string, unknown>;
        this.events.providerError(text(error.message) || "unknown error");
        return;
      }
    }
  }

  /** An audio delta matched by AUDIO_DELTA; like JSON.parse, the last of a repeated key counts. */
  private receiveAudio(raw: string): void {
    const deltaStart = raw.lastIndexOf(DELTA_KEY) + DELTA_KEY.length;
    const itemKey = raw.lastIndexOf(ITEM_ID_KEY);
    const itemStart = itemKey + ITEM_ID_KEY.length;
    const itemId = itemKey < 0 ? "" : raw.slice(itemStart, raw.indexOf('"', itemStart));
    this.events.audio(itemId, raw.slice(deltaStart, raw.length - 2));
  }
}

function functionCallOf(item: unknown): FunctionCall | undefined {
  if (typeof item !== "object" || item === null) return undefined;
  const fields = item as Record<string, unknown>;
  if (fields.type !== "function_call" || typeof fields.call_id !== "string" || typeof fields.name !== "string") {
    return undefined;
  }
  return { callId: fields.call_id, name: fields.name, arguments: text(fields.arguments) };
}
