// One HTTP attempt: POST the signed event to the checked address, within the timeout. Redirects are not followed
// (a 3xx is a failure like any other non-2xx), so a receiver cannot bounce the request to somewhere unchecked.
import http from "node:http";
import https from "node:https";
import { pinnedLookup, type ResolvedAddress } from "../../http/targets.ts";

interface Attempt {
  url: URL;
  /** The checked address the connection must go to, whatever the name resolves to by now. */
  address: ResolvedAddress;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

export type AttemptOutcome = { ok: boolean; responseStatus: number | null; error: string | null; durationMs: number };

/** Bytes of a response body read at most; the rest is discarded. Nobody looks at it. */
const MAX_RESPONSE_BYTES = 64 * 1024;

const agents = {
  http: new http.Agent({ keepAlive: true, maxSockets: 16 }),
  https: new https.Agent({ keepAlive: true, maxSockets: 16 }),
};

export function sendAttempt(attempt: Attempt): Promise<AttemptOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const timeout = AbortSignal.timeout(attempt.timeoutMs);
  const signal = attempt.signal ? AbortSignal.any([timeout, attempt.signal]) : timeout;
  const isHttps = attempt.url.protocol === "https:";
  return new Promise((resolve) => {
    let settled = false;
    const settle = (outcome: Omit<AttemptOutcome, "durationMs">) => {
      if (settled) return;
      settled = true;
      resolve({ ...outcome, durationMs: elapsed() });
    };
    const request = (isHttps ? https : http).request(
      attempt.url,
      {
        method: "POST",
        agent: isHttps ? agents.https : agents.http,
        lookup: pinnedLookup(attempt.address),
        headers: { ...attempt.headers, "content-length": Buffer.byteLength(attempt.body) },
        signal,
      },
      (response) => {
        const status = response.statusCode ?? 0;
        let read = 0;
        response.on("data", (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_RESPONSE_BYTES) response.destroy();
        });
        const done = () =>
          settle({
            ok: status >= 200 && status < 300,
            responseStatus: status,
            error: status >= 200 && status < 300 ? null : `HTTP ${status}`,
          });
        response.on("end", done);
        response.on("close", done);
        response.on("error", done);
      },
    );
    request.on("error", (error: NodeJS.ErrnoException) => {
      let reason = describeNetworkError(error);
      if (timeout.aborted) reason = `Timed out after ${attempt.timeoutMs} ms`;
      else if (attempt.signal?.aborted) reason = "Shutting down";
      settle({ ok: false, responseStatus: null, error: reason });
    });
    request.end(attempt.body);
  });
}

function describeNetworkError(error: NodeJS.ErrnoException): string {
  const code = error.code ? ` (${error.code})` : "";
  const reasons: Record<string, string> = {
    ECONNREFUSED: "Connection refused",
    ECONNRESET: "Connection reset",
    EHOSTUNREACH: "Host unreachable",
    ENETUNREACH: "Network unreachable",
    ETIMEDOUT: "Connection timed out",
  };
  const reason = (error.code && reasons[error.code]) ?? (error.message.split("\n")[0] || "Network error");
  return `${reason}${code}`.slice(0, 500);
}
