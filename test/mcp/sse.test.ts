// Legacy SSE: endpoint event, replies on the session's own stream, 400 vs 404, sessions freed on close, keep-alive.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestApp } from "../helpers/app.ts";
import { eventually } from "../helpers/eventually.ts";
import { call, postJson, RawSseStream, startMcpApp } from "./helpers.ts";

let server: TestApp;
beforeAll(async () => {
  server = await startMcpApp();
});
afterAll(async () => server?.close());

describe("legacy SSE transport", () => {
  it("sends the endpoint first, answers 202 and puts the reply on the stream", async () => {
    const stream = await RawSseStream.open(server.url);
    try {
      expect(stream.status).toBe(200);
      const endpoint = await stream.endpoint();
      expect(stream.events[0]?.event).toBe("endpoint");
      expect(endpoint).toMatch(/^\/messages\/\?session_id=[0-9a-f]{32}$/);
      const accepted = await postJson(server.url, endpoint, call(1, "echo", { text: "over sse" }));
      expect(accepted.status).toBe(202);
      expect(await stream.reply(1)).toEqual({
        jsonrpc: "2.0",
        id: 1,
        result: {
          content: [{ type: "text", text: '{"echoed":"over sse"}' }],
          structuredContent: { echoed: "over sse" },
        },
      });
    } finally {
      stream.close();
    }
  });

  it("accepts sessionId= as well as session_id=, and puts errors on the stream with the id echoed", async () => {
    const stream = await RawSseStream.open(server.url);
    try {
      const sessionId = (await stream.endpoint()).split("=")[1];
      const accepted = await postJson(server.url, `/messages/?sessionId=${sessionId}`, {
        jsonrpc: "2.0",
        id: 77,
        method: "nope",
      });
      expect(accepted.status).toBe(202);
      expect(await stream.reply(77)).toEqual({
        jsonrpc: "2.0",
        id: 77,
        error: { code: -32601, message: "Method not found" },
      });
      await postJson(server.url, `/messages/?session_id=${sessionId}`, "{oops");
      const parseError = await stream.next((event) => event.event === "message" && event.data.includes("-32700"));
      expect(JSON.parse(parseError.data)).toEqual({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32700, message: "Parse error" },
      });
    } finally {
      stream.close();
    }
  });

  it("the stream is an event stream a browser page on localhost may read (CORS)", async () => {
    const stream = await RawSseStream.open(server.url, { origin: "http://localhost:6274" });
    try {
      await stream.endpoint();
      expect(stream.headers["content-type"]).toBe("text/event-stream");
      expect(stream.headers["cache-control"]).toBe("no-cache");
      expect(stream.headers["access-control-allow-origin"]).toBe("http://localhost:6274");
    } finally {
      stream.close();
    }
  });

  it("an empty or malformed session id is 400; a well-formed unknown one is 404", async () => {
    const empty = await postJson(server.url, "/messages/?session_id=", call(1, "echo", { text: "x" }));
    expect(empty.status).toBe(400);
    const malformed = await postJson(server.url, "/messages/?session_id=xyz", call(1, "echo", { text: "x" }));
    expect(malformed.status).toBe(400);
    const unknown = await postJson(server.url, `/messages/?session_id=${"a".repeat(32)}`, call(1, "echo", {}));
    expect(unknown.status).toBe(404);
  });

  it("50 concurrent sessions each get only their own replies", async () => {
    const streams = await Promise.all(Array.from({ length: 50 }, () => RawSseStream.open(server.url)));
    try {
      const endpoints = await Promise.all(streams.map((stream) => stream.endpoint()));
      await Promise.all(
        endpoints.map((endpoint, index) =>
          Promise.all(
            [0, 1, 2].map((round) =>
              postJson(server.url, endpoint, call(`${index}-${round}`, "echo", { text: `s${index}r${round}` })),
            ),
          ),
        ),
      );
      await Promise.all(streams.map((stream, index) => stream.reply(`${index}-2`)));
      await Promise.all(streams.map((stream, index) => stream.reply(`${index}-0`)));
      await Promise.all(streams.map((stream, index) => stream.reply(`${index}-1`)));
      streams.forEach((stream, index) => {
        const messages = stream.messages();
        expect(messages).toHaveLength(3);
        for (const message of messages) {
          expect(message.id).toMatch(new RegExp(`^${index}-`));
          expect(message.result.structuredContent.echoed).toMatch(new RegExp(`^s${index}r`));
        }
      });
    } finally {
      for (const stream of streams) stream.close();
    }
  });

  it("closing the stream frees its session: its endpoint is then 404", async () => {
    const stream = await RawSseStream.open(server.url);
    const endpoint = await stream.endpoint();
    expect((await postJson(server.url, endpoint, call(1, "echo", { text: "x" }))).status).toBe(202);
    stream.close();
    const status = async () => (await postJson(server.url, endpoint, call(2, "echo", { text: "x" }))).status;
    await eventually(async () => (await status()) === 404, "the session's endpoint to answer 404");
  });
});

describe("keep-alive", () => {
  it("sends a ': keepalive' comment on an idle stream", async () => {
    const app = await startMcpApp("sqlite", { mcp: { keepaliveMs: 50 } });
    const stream = await RawSseStream.open(app.url);
    try {
      await stream.endpoint();
      await eventually(() => stream.comments >= 2, "two keep-alive comments");
    } finally {
      stream.close();
      await app.close();
    }
  });
});
