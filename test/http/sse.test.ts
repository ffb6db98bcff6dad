// The one SSE writer, on a real server and real client sockets: head, framing, keep-alive, a slow client dropped.
import { once } from "node:events";
import { connect } from "node:net";
import Fastify, { type FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { KeepAlives, SseStream, sseFrame } from "../../src/http/sse.ts";

let app: FastifyInstance | undefined;
let keepAlives: KeepAlives | undefined;

afterEach(async () => {
  keepAlives?.close();
  await app?.close();
  app = keepAlives = undefined;
});

async function serve(handler: (stream: SseStream) => void, maxUnreadBytes?: number): Promise<string> {
  app = Fastify();
  app.get("/stream", async (_request, reply) => {
    reply.header("x-from-hook", "kept");
    const stream = SseStream.open(reply, { firstFrames: sseFrame({ event: "hello", data: "{}" }), maxUnreadBytes });
    if (stream) handler(stream);
    return reply;
  });
  return app.listen({ port: 0, host: "127.0.0.1" });
}

describe("sseFrame", () => {
  it("writes id, event and one data line per line of the payload", () => {
    expect(sseFrame({ id: 7, event: "note", data: '{"a":1}' })).toBe('id: 7\nevent: note\ndata: {"a":1}\n\n');
    expect(sseFrame({ data: "one\ntwo\r\nthree\rfour" })).toBe("data: one\ndata: two\ndata: three\ndata: four\n\n");
    expect(sseFrame({ event: "empty", data: "" })).toBe("event: empty\ndata: \n\n");
  });
});

describe("SseStream", () => {
  it("sends the head with the headers set before, the first frames, then frames and keep-alive comments", async () => {
    keepAlives = new KeepAlives(20, ": keep-alive\n\n");
    const url = await serve((stream) => {
      keepAlives!.add(stream);
      stream.send(sseFrame({ id: 1, event: "line", data: "a\nb" }));
    });
    const controller = new AbortController();
    const response = await fetch(`${url}/stream`, { signal: controller.signal });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.headers.get("cache-control")).toBe("no-cache");
    expect(response.headers.get("x-from-hook")).toBe("kept");
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes(": keep-alive\n\n")) text += (await reader.read()).value ?? "";
    expect(text).toBe("event: hello\ndata: {}\n\nid: 1\nevent: line\ndata: a\ndata: b\n\n: keep-alive\n\n");
    controller.abort();
  });

  it("drops a client that stops reading once more than the bound is unsent", async () => {
    const bound = 64 * 1024;
    const chunk = `data: ${"x".repeat(16 * 1024)}\n\n`;
    let sent = 0;
    const opened = new Promise<SseStream>((resolve) => {
      void serve(resolve, bound).then((url) => {
        const client = connect(Number(new URL(url).port), "127.0.0.1");
        // The client sends its request and never reads a byte.
        client.pause();
        client.write("GET /stream HTTP/1.1\r\nhost: x\r\n\r\n");
      });
    });
    const stream = await opened;
    const dropped = new Promise<void>((resolve) => stream.onClose(resolve));
    // Far more than any socket buffer holds: without the bound this would all be kept in memory.
    while (stream.send(chunk)) {
      sent += chunk.length;
      if (sent > 256 * 1024 * 1024) throw new Error("never dropped");
      if (stream.unsentBytes > 0 && sent % (1024 * 1024) < chunk.length) await new Promise(setImmediate);
    }
    await dropped;
    expect(stream.closed).toBe(true);
    expect(stream.send(chunk)).toBe(false);
  });

  it("sendPaced waits until the client has taken the chunk", async () => {
    const url = await serve((stream) => {
      void (async () => {
        for (let index = 0; index < 64; index++) await stream.sendPaced(`data: ${"y".repeat(64 * 1024)}\n\n`);
        stream.end();
      })();
    }, 1024);
    const client = connect(Number(new URL(url).port), "127.0.0.1");
    client.write("GET /stream HTTP/1.1\r\nhost: x\r\n\r\n");
    let received = 0;
    client.on("data", (data: Buffer) => {
      received += data.length;
    });
    await once(client, "end");
    // Paced writes are never dropped, however small the bound: everything arrives.
    expect(received).toBeGreaterThan(64 * 64 * 1024);
  });
});
