// A phone-carrier double: fetches the webhook like Twilio does (optionally signed), reads the Stream URL and the
// <Parameter>s out of the XML, then opens the media stream as a real WebSocket client speaking Twilio Media Streams.
import { randomBytes } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { type RawData, WebSocket } from "ws";
import { twilioSignature } from "../../../src/voice/twilio-signature.ts";
import { eventually } from "../../helpers/eventually.ts";
import type { WireMessage } from "./realtime-provider.ts";

/** 20 ms of μ-law at 8 kHz. */
export const FRAME_BYTES = 160;

export interface PlaceCallOptions {
  callSid?: string;
  method?: "GET" | "POST";
  /** Sign the webhook request with this auth token, as Twilio does. */
  twilioAuthToken?: string;
  /** Echo every mark back as soon as it arrives, as if the audio played instantly. */
  autoAckMarks?: boolean;
}

export interface Webhook {
  status: number;
  contentType: string;
  body: string;
  headers: Headers;
}

export const newSid = (prefix: string): string => `${prefix}${randomBytes(16).toString("hex")}`;

export async function fetchWebhook(
  serverUrl: string,
  { callSid, method = "POST", twilioAuthToken }: PlaceCallOptions,
): Promise<Webhook> {
  const params = { AccountSid: "ACtest", CallSid: callSid ?? newSid("CA"), From: "+15550100", To: "+15550199" };
  const headers: Record<string, string> = {};
  let url = `${serverUrl}/`;
  let body: string | undefined;
  if (method === "POST") {
    body = new URLSearchParams(params).toString();
    headers["content-type"] = "application/x-www-form-urlencoded";
  } else {
    url += `?${new URLSearchParams(params).toString()}`;
  }
  if (twilioAuthToken) {
    const signed = method === "POST" ? Object.fromEntries(Object.entries(params).map(([k, v]) => [k, [v]])) : {};
    headers["x-twilio-signature"] = twilioSignature(twilioAuthToken, url, signed);
  }
  const response = await fetch(url, { method, headers, body });
  return {
    status: response.status,
    contentType: response.headers.get("content-type") ?? "",
    body: await response.text(),
    headers: response.headers,
  };
}

/**
 * A request Twilio makes to a URL it was given (a call's webhook Url, a StatusCallback): a form POST, signed with the
 * auth token when one is given, exactly as Twilio signs it (the full URL, query included, then the parameters).
 */
export async function carrierPost(
  url: string,
  params: Record<string, string>,
  twilioAuthToken?: string,
): Promise<{ status: number; body: string }> {
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
  if (twilioAuthToken) {
    const signed = Object.fromEntries(Object.entries(params).map(([name, value]) => [name, [value]]));
    headers["x-twilio-signature"] = twilioSignature(twilioAuthToken, url, signed);
  }
  const response = await fetch(url, { method: "POST", headers, body: new URLSearchParams(params).toString() });
  return { status: response.status, body: await response.text() };
}

export function streamOf(xml: string): { url: string; parameters: Record<string, string> } {
  const url = /<Stream url="([^"]+)">/.exec(xml)?.[1];
  if (!url) throw new Error(`no <Stream url> in ${xml}`);
  const parameters: Record<string, string> = {};
  for (const match of xml.matchAll(/<Parameter name="([^"]+)" value="([^"]*)"\/>/g)) parameters[match[1]!] = match[2]!;
  return { url, parameters };
}

export class CarrierCall {
  readonly received: WireMessage[] = [];
  readonly closed: Promise<number>;
  readonly streamSid = newSid("MZ");
  private sequence = 0;
  private timestampMs = 0;

  private constructor(
    readonly socket: WebSocket,
    readonly callSid: string,
    private readonly autoAckMarks: boolean,
    /** The headers of the server's 101 answer (a proxy's X-Served-By, say). */
    readonly upgradeHeaders: IncomingHttpHeaders,
  ) {
    this.closed = new Promise((resolve) => socket.on("close", (code: number) => resolve(code)));
    socket.on("error", () => {});
    socket.on("message", (data: RawData) => {
      const message = JSON.parse(data.toString()) as WireMessage;
      this.received.push(message);
      if (this.autoAckMarks && message.event === "mark") this.ackMark(message.mark.name);
    });
  }

  /** Webhook, then the media stream, then `connected` and `start` as Twilio sends them. */
  static async place(serverUrl: string, options: PlaceCallOptions = {}): Promise<CarrierCall> {
    const callSid = options.callSid ?? newSid("CA");
    const webhook = await fetchWebhook(serverUrl, { ...options, callSid });
    if (webhook.status !== 200) throw new Error(`webhook answered ${webhook.status}: ${webhook.body}`);
    const stream = streamOf(webhook.body);
    return CarrierCall.connect(stream.url, callSid, stream.parameters, options);
  }

  /** Opens the media stream directly (a wss:// URL is reached as ws://, as behind a TLS-terminating tunnel). */
  static async connect(
    streamUrl: string,
    callSid: string,
    customParameters: Record<string, string>,
    options: PlaceCallOptions = {},
  ): Promise<CarrierCall> {
    const socket = new WebSocket(streamUrl.replace(/^wss:/, "ws:"), { perMessageDeflate: false });
    let upgradeHeaders: IncomingHttpHeaders = {};
    socket.once("upgrade", (response) => {
      upgradeHeaders = response.headers;
    });
    await new Promise<void>((resolve, reject) => {
      socket.once("open", resolve);
      socket.once("error", reject);
    });
    const call = new CarrierCall(socket, callSid, options.autoAckMarks ?? false, upgradeHeaders);
    call.sendRaw({ event: "connected", protocol: "Call", version: "1.0.0" });
    call.sendRaw({
      event: "start",
      sequenceNumber: String(++call.sequence),
      start: {
        accountSid: "ACtest",
        streamSid: call.streamSid,
        callSid,
        tracks: ["inbound"],
        customParameters,
        mediaFormat: { encoding: "audio/x-mulaw", sampleRate: 8000, channels: 1 },
      },
      streamSid: call.streamSid,
    });
    return call;
  }

  sendRaw(frame: WireMessage | string): void {
    if (this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(typeof frame === "string" ? frame : JSON.stringify(frame));
    }
  }

  sendMediaFrame(payload: string): void {
    this.sendRaw({
      event: "media",
      sequenceNumber: String(++this.sequence),
      media: { track: "inbound", chunk: String(this.sequence), timestamp: String(this.timestampMs), payload },
      streamSid: this.streamSid,
    });
    this.timestampMs += 20;
  }

  /** Sends audio as consecutive 20 ms media frames. */
  sendAudio(audio: Buffer): number {
    let frames = 0;
    for (let offset = 0; offset < audio.length; offset += FRAME_BYTES) {
      this.sendMediaFrame(audio.subarray(offset, offset + FRAME_BYTES).toString("base64"));
      frames++;
    }
    return frames;
  }

  ackMark(name: string): void {
    this.sendRaw({ event: "mark", sequenceNumber: String(++this.sequence), streamSid: this.streamSid, mark: { name } });
  }

  /** The caller presses a key: a `dtmf` frame as Twilio sends it. */
  pressKey(digit: string): void {
    this.sendRaw({
      event: "dtmf",
      streamSid: this.streamSid,
      sequenceNumber: String(++this.sequence),
      dtmf: { track: "inbound_track", digit },
    });
  }

  stop(): void {
    this.sendRaw({ event: "stop", sequenceNumber: String(++this.sequence), streamSid: this.streamSid, stop: {} });
  }

  /** The caller's network drops: no close frame. */
  vanish(): void {
    this.socket.terminate();
  }

  ofEvent(event: string): WireMessage[] {
    return this.received.filter((message) => message.event === event);
  }

  /** The bytes of every media frame received, in order. */
  receivedAudio(): Buffer {
    return Buffer.concat(this.ofEvent("media").map((message) => Buffer.from(message.media.payload, "base64")));
  }

  async waitFor(predicate: (received: WireMessage[]) => boolean, timeoutMs = 5_000): Promise<void> {
    await eventually(() => predicate(this.received), "a message at the carrier double", timeoutMs);
  }
}
