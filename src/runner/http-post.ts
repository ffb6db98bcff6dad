// A JSON POST over node:http with kept-alive connections. The runner makes a call or two for every task it works;
// node:http costs a fraction of fetch's CPU for each, and a runner that works hundreds of short tasks a minute feels it.
import http from "node:http";
import https from "node:https";

/**
 * Idle connections are closed after 4 s (as fetch does) or sooner when the server's Keep-Alive hint says so: a
 * connection the server has just dropped is not picked for the next call.
 */
const IDLE_MS = 4_000;
const agents = {
  http: new http.Agent({ keepAlive: true, timeout: IDLE_MS }),
  https: new https.Agent({ keepAlive: true, timeout: IDLE_MS }),
};

export interface HttpAnswer {
  status: number;
  statusText: string;
  text: string;
}

export interface PostOptions {
  headers: Record<string, string>;
  /** Aborting it ends the call with an `AbortError`. */
  signal?: AbortSignal;
  /** The whole call's deadline: past it the call fails with a `TimeoutError`. */
  timeoutMs: number;
}

export function postJson(url: URL, body: string, options: PostOptions): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const secure = url.protocol === "https:";
    const request = (secure ? https : http).request(
      url,
      {
        method: "POST",
        agent: secure ? agents.https : agents.http,
        headers: { ...options.headers, "content-length": Buffer.byteLength(body) },
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("error", fail);
        response.on("end", () => {
          clearTimeout(deadline);
          resolve({
            status: response.statusCode ?? 0,
            statusText: response.statusMessage ?? "",
            text: Buffer.concat(chunks).toString("utf8"),
          });
        });
      },
    );
    const deadline = setTimeout(() => {
      const error = new Error(`No answer from ${url.origin} within ${options.timeoutMs} ms`);
      error.name = "TimeoutError";
      request.destroy(error);
    }, options.timeoutMs);
    function fail(error: Error) {
      clearTimeout(deadline);
      reject(error);
    }
    request.on("error", fail);
    request.end(body);
  });
}
