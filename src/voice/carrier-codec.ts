// Carrier stage: Twilio Media Streams JSON frames in and out of one WebSocket, as typed events.
// Frames are checked by hand rather than by a schema library: the media frame is the hot path (50 per second per call).
import type { Socket } from "node:net";
import type { RawData, WebSocket } from "ws";

export interface StreamStart {
  streamSid: string;
  callSid: string;
  customParameters: Record<string, string>;
}

interface CarrierEvents {
  start(start: StreamStart): void;
  /** Base64 μ-law 8 kHz, passed through untouched. */
  media(payload: string): void;
  mark(name: string): void;
  dtmf(digit: string): void;
  stop(): void;
  malformed(reason: string): void;
  closed(code: number): void;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** The keys of a phone keypad (A–D on the few that have them). */
const DTMF_DIGIT = /^[0-9*#A-D]$/;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The `start` frame's fields, or why it is malformed. */
function parseStart(start: unknown): StreamStart | string {
  if (!isRecord(start) || typeof start.streamSid !== "string" || start.streamSid === "") {
    return "start without a streamSid";
  }
  const customParameters: Record<string, string> = {};
  if (isRecord(start.customParameters)) {
    for (const [name, value] of Object.entries(start.customParameters)) {
      if (typeof value === "string") customParameters[name] = value;
    }
  }
  const callSid = typeof start.callSid === "string" ? start.callSid : "";
  return { streamSid: start.streamSid, callSid, customParameters };
}

/** One carrier connection: decodes its frames into events and encodes what the bridge sends back. */
export class CarrierStream {
  private streamSidJson = '""';

  constructor(
    private readonly socket: WebSocket,
    private readonly events: CarrierEvents,
  ) {
    socket.on("message", (data: RawData, isBinary: boolean) => this.receive(data, isBinary));
    socket.on("close", (code: number) => events.closed(code));
    // An abrupt disconnect surfaces as an error followed by close; close does the teardown.
    socket.on("error", () => {});
  }

  /** Every frame we send carries the stream sid learned from `start`. */
  useStreamSid(streamSid: string): void {
    this.streamSidJson = JSON.stringify(streamSid);
  }

  private sendMedia(payload: string): void {
    // The payload came from JSON.parse of the provider's frame; JSON.stringify keeps it safe to splice.
    this.send(`{"event":"media","streamSid":${this.streamSidJson},"media":{"payload":${JSON.stringify(payload)}}}`);
  }

  /** An audio chunk and the mark after it, written to the network together (one write instead of two). */
  sendMediaAndMark(payload: string, markName: string): void {
    // ws has no public cork: its own frames cork the underlying socket the same way, and nested corks are counted.
    const raw = (this.socket as unknown as { _socket?: Socket | null })._socket;
    raw?.cork();
    this.sendMedia(payload);
    this.sendMark(markName);
    raw?.uncork();
  }

  private sendMark(name: string): void {
    this.send(`{"event":"mark","streamSid":${this.streamSidJson},"mark":{"name":${JSON.stringify(name)}}}`);
  }

  sendClear(): void {
    this.send(`{"event":"clear","streamSid":${this.streamSidJson}}`);
  }

  close(code: number, reason: string): void {
    if (this.socket.readyState === this.socket.OPEN || this.socket.readyState === this.socket.CONNECTING) {
      this.socket.close(code, reason);
    }
  }

  private send(text: string): void {
    if (this.socket.readyState === this.socket.OPEN) this.socket.send(text);
  }

  /** Checks a frame and hands it on as its event; anything out of shape becomes `malformed`. */
  private receive(data: RawData, isBinary: boolean): void {
    const reason = isBinary ? "binary frame" : this.dispatch(data.toString());
    if (reason) this.events.malformed(reason);
  }

  /** Returns why the frame is malformed, or undefined once its event has been handed on. */
  private dispatch(text: string): string | undefined {
    let frame: unknown;
    try {
      frame = JSON.parse(text);
    } catch {
      return "not JSON";
    }
    if (!isRecord(frame) || typeof frame.event !== "string") return "no event name";
    switch (frame.event) {
      case "media": {
        const payload = isRecord(frame.media) ? frame.media.payload : undefined;
        if (typeof payload !== "string" || payload.length % 4 !== 0 || !BASE64.test(payload)) {
          return "media without a base64 payload";
        }
        this.events.media(payload);
        return undefined;
      }
      case "mark": {
        const name = isRecord(frame.mark) ? frame.mark.name : undefined;
        if (typeof name !== "string") return "mark without a name";
        this.events.mark(name);
        return undefined;
      }
      case "start": {
        const start = parseStart(frame.start);
        if (typeof start === "string") return start;
        this.events.start(start);
        return undefined;
      }
      case "dtmf": {
        const digit = isRecord(frame.dtmf) ? frame.dtmf.digit : undefined;
        if (typeof digit !== "string" || !DTMF_DIGIT.test(digit)) return "dtmf without a digit";
        this.events.dtmf(digit);
        return undefined;
      }
      case "connected":
        return undefined;
      case "stop":
        this.events.stop();
        return undefined;
      default:
        return `unknown event ${JSON.stringify(frame.event).slice(0, 40)}`;
    }
  }
}
