// Handing a caller to a person: the TwiML that dials the target, and the whisper the target hears first on a warm
// hand-off. The whisper's text travels in its URL, signed, so any call process on the same secret can serve it and
// nobody else can make it say anything.
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";
import type { TransferTarget } from "../config.ts";
import { escapeXml } from "./webhook.ts";

export const WHISPER_PATH = "/transfer-whisper";
/** Enough for a few sentences; a longer summary is cut, so the URL stays well inside the carrier's limits. */
const MAX_SUMMARY_CHARS = 1_000;

/** The target as the model may name it: its name (any case) or the number or URI itself. */
export function findTransferTarget(targets: TransferTarget[], to: string): TransferTarget | undefined {
  const wanted = to.trim();
  return targets.find(
    (target) => target.target === wanted || (target.name && target.name.toLowerCase() === wanted.toLowerCase()),
  );
}

export const describeTarget = (target: TransferTarget): string =>
  target.name ? `${target.name} (${target.target})` : target.target;

/**
 * `<Response><Dial>…</Dial></Response>`: a number as Dial's text, a SIP URI as a `<Sip>` noun; with a whisper URL,
 * the noun carries it as `url`, which the carrier runs on the target's leg once it answers, before joining the caller.
 */
export function transferTwiml(target: TransferTarget, whisperUrl?: string): string {
  const address = escapeXml(target.target);
  const isSip = /^sips?:/i.test(target.target);
  let dial: string;
  if (whisperUrl === undefined) dial = isSip ? `<Sip>${address}</Sip>` : address;
  else {
    const noun = isSip ? "Sip" : "Number";
    dial = `<${noun} url="${escapeXml(whisperUrl)}">${address}</${noun}>`;
  }
  return `<Response><Dial>${dial}</Dial></Response>`;
}

export function whisperTwiml(summary: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?><Response><Say>${escapeXml(summary)}</Say></Response>`;
}

export class WhisperLinks {
  private readonly key: Buffer;

  /** Without a shared secret (the development value), only this process can serve the links it made. */
  constructor(secret: string | undefined) {
    this.key =
      secret === undefined
        ? randomBytes(32)
        : Buffer.from(hkdfSync("sha256", secret, "agent-platform", "voice transfer whispers", 32));
  }

  /** `origin` is the call server's public https origin, as the carrier reaches it. */
  url(origin: string, summary: string): string {
    const text = summary.slice(0, MAX_SUMMARY_CHARS);
    const query = new URLSearchParams({ summary: text, sig: this.mac(text) });
    return `${origin.replace(/\/+$/, "")}${WHISPER_PATH}?${query.toString()}`;
  }

  /** The summary a genuine link carries, or undefined. */
  summaryOf(query: URLSearchParams): string | undefined {
    const summary = query.get("summary");
    const given = Buffer.from(query.get("sig") ?? "");
    if (summary === null) return undefined;
    const expected = Buffer.from(this.mac(summary));
    return given.length === expected.length && timingSafeEqual(given, expected) ? summary : undefined;
  }

  private mac(summary: string): string {
    return createHmac("sha256", this.key).update(summary).digest("base64url");
  }
}
