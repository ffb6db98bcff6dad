// The carrier's webhook: the XML instruction document that connects the call to our media stream.
import type { FormParams } from "./twilio-signature.ts";

export const escapeXml = (value: string): string =>
  value.replace(/[<>&"']/g, (char) => `&${{ "<": "lt", ">": "gt", "&": "amp", '"': "quot", "'": "apos" }[char]};`);

/**
 * `<Response>` with an empty Say, a one-second Pause and a Connect to wss://HOST/media-stream carrying the token
 * (and any further parameters, e.g. the caller's number).
 */
export function webhookDocument(host: string, parameters: Record<string, string>): string {
  const carried = Object.entries(parameters)
    .map(([name, value]) => `<Parameter name="${escapeXml(name)}" value="${escapeXml(value)}"/>`)
    .join("");
  return (
    '<?xml version="1.0" encoding="UTF-8"?>' +
    '<Response><Say></Say><Pause length="1"/><Connect>' +
    `<Stream url="wss://${escapeXml(host)}/media-stream">${carried}</Stream></Connect></Response>`
  );
}

export const statusPage =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Call server</title></head>' +
  "<body><h1>The call server is running</h1><p>Point your phone number's voice webhook at <code>/</code>.</p></body></html>";

/** A host name (or IPv4/IPv6 literal) with an optional port: anything else is refused before it reaches the XML. */
export const VALID_HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

export function parseForm(body: string): FormParams {
  const params: FormParams = {};
  for (const [name, value] of new URLSearchParams(body)) {
    const values = params[name] ?? [];
    values.push(value);
    params[name] = values;
  }
  return params;
}
