// Carrier stage: Twilio Media Streams JSON frames in and out of one WebSocket, as typed events.
// Frames are checked by hand rather than by a schema library: the media frame is the hot path (50 per second per call).
// A media frame in Twilio's shape, and the echo of one of our marks, is recognised whole by one pattern and its field
// cut out of the text, with no JSON.parse; any other frame, or one in another shape, is parsed and checked field by
// field.
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
/**
 * A whole media frame as Twilio writes it (its fields in Twilio's order, all but the payload optional). A frame that
 * matches is valid JSON whose payload is base64 of whole 4-character groups, and no other field holds `"payload":"`.
 */
const MEDIA_FRAME =
  /^\{"event":"media",(?:"sequenceNumber":"\d+",)?"media":\{(?:"track":"[a-z_]+",)?(?:"chunk":"\d+",)?(?:"timestamp":"\d+",)?"payload":"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?"\}(?:,"streamSid":"[A-Za-z0-9]*")?\}$/;
const PAYLOAD_KEY = '"payload":"';
/**
 * A whole mark echo as Twilio writes it, for a mark of ours (its name digits): a third of the frames a talking call
 * receives. A frame that matches is valid JSON and its only `"name":"` is the mark's.
 */
const MARK_FRAME =
  /^\{"event":"mark",(?:"sequenceNumber":"\d+",)?(?:"streamSid":"[A-Za-z0-9]*",)?"mark":\{"name":"\d+"\}\}$/;
const NAME_KEY = '"name":"';
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

  /** An audio chunk; `payload` must be base64 (the provider client lets nothing else through), spliced as is. */
  sendMedia(payload: string): void {
    this.send(`{"event":"media","streamSid":${this.streamSidJson},"media":{"payload":"${payload}"}}`);
  }

  /**
   * An audio chunk with the marks around it (a mark closing the audio before it, a mark after it), written to the
   * network together: one write instead of two or three.
   */
  sendMarkedMedia(markBefore: string | undefined, payload: string, markAfter: string | undefined): void {
    // ws has no public cork: its own frames cork the underlying socket the same way, and nested corks are counted.
    const raw = (this.socket as unknown as { _socket?: Socket | null })._socket;
    raw?.cork();
    if (markBefore !== undefined) this.sendMark(markBefore);
    this.sendMedia(payload);
    if (markAfter !== undefined) this.sendMark(markAfter);
    raw?.uncork();
  }

  /** Mark names are ours (digits), spliced as is. */
  sendMark(name: string): void {
    this.send(`{"event":"mark","streamSid":${this.streamSidJson},"mark":{"name":"${name}"}}`);
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
    if (isBinary) {
      this.events.malformed("binary frame");
      return;
    }
    const text = data.toString();
    if (MEDIA_FRAME.test(text)) {
      const start = text.indexOf(PAYLOAD_KEY) + PAYLOAD_KEY.length;
      this.events.media(text.slice(start, text.indexOf('"', start)));
      return;
    }
    if (MARK_FRAME.test(text)) {
      const start = text.indexOf(NAME_KEY) + NAME_KEY.length;
      this.events.mark(text.slice(start, text.length - 3));
      return;
    }
    const reason = this.dispatch(text);
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
