// Server-sent events read through fetch, so the bearer token travels in a header (EventSource sends none).
import { authHeaders, failure } from "./api.ts";

interface SseFrame {
  id?: string;
  event: string;
  data: string;
}

/** Splits a text/event-stream body into frames; comments (keep-alives) are skipped. */
export async function readSse(
  response: Response,
  onFrame: (frame: SseFrame) => void,
  signal?: AbortSignal,
): Promise<void> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  try {
    for (;;) {
      if (signal?.aborted) return;
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value.replace(/\r\n?/g, "\n");
      let end = buffer.indexOf("\n\n");
      while (end !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const frame: SseFrame = { event: "message", data: "" };
        const data: string[] = [];
        for (const line of block.split("\n")) {
          if (line === "" || line.startsWith(":")) continue;
          const colon = line.indexOf(":");
          const field = colon === -1 ? line : line.slice(0, colon);
          const text = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
          if (field === "data") data.push(text);
          else if (field === "event") frame.event = text;
          else if (field === "id") frame.id = text;
        }
        if (data.length > 0) {
          frame.data = data.join("\n");
          onFrame(frame);
        }
        end = buffer.indexOf("\n\n");
      }
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

/** Opens a streaming request with the session's credentials; throws the API's error if it is refused. */
export async function openStream(
  method: "GET" | "POST",
  url: string,
  options: { body?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<Response> {
  const response = await fetch(url, {
    method,
    signal: options.signal,
    headers: {
      accept: "text/event-stream",
      ...authHeaders(),
      ...options.headers,
      ...(options.body !== undefined && { "content-type": "application/json" }),
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  if (!response.ok) throw await failure(response);
  return response;
}
