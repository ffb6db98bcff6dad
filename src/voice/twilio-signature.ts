// Twilio's webhook signature (X-Twilio-Signature): base64 HMAC-SHA1, keyed with the account's auth token, over the
// full URL Twilio requested followed by every POST parameter sorted by name, each as name + value (a repeated name's
// values sorted, duplicates once), as Twilio's own helper libraries compute it.
import { createHmac, timingSafeEqual } from "node:crypto";

export type FormParams = Record<string, string[]>;

export function twilioSignature(authToken: string, url: string, params: FormParams): string {
  let data = url;
  for (const name of Object.keys(params).sort()) {
    for (const value of [...new Set(params[name])].sort()) data += name + value;
  }
  return createHmac("sha1", authToken).update(data, "utf8").digest("base64");
}

/**
 * True when the signature matches the URL as given, or with its default port added or removed:
 * Twilio may sign either form, as its own validators allow.
 */
export function verifyTwilioSignature(
  authToken: string,
  url: string,
  params: FormParams,
  signature: string | undefined,
): boolean {
  if (!signature) return false;
  const given = Buffer.from(signature);
  let valid = false;
  for (const candidate of urlVariants(url)) {
    const expected = Buffer.from(twilioSignature(authToken, candidate, params));
    // Every variant is compared, so the time taken does not depend on which one matched.
    if (expected.length === given.length && timingSafeEqual(expected, given)) valid = true;
  }
  return valid;
}

function urlVariants(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [url];
  }
  const defaultPort = parsed.protocol === "https:" ? "443" : "80";
  const authority = /^[a-z]+:\/\/([^/?#]*)/i.exec(url)?.[1] ?? "";
  const withoutPort = authority.replace(/:\d+$/, "");
  const rest = url.slice(url.indexOf(authority) + authority.length);
  const scheme = url.slice(0, url.indexOf("://") + 3);
  return [...new Set([url, `${scheme}${withoutPort}${rest}`, `${scheme}${withoutPort}:${defaultPort}${rest}`])];
}
