// A client dribbling its request body holds a socket for as long as it likes, unless the request must be in within
// REQUEST_BODY_TIMEOUT_MS; long-lived responses (event streams) must not be cut by that limit.
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SseClient } from "../events/helpers.ts";
import { registerUser, startTestApp, type TestApp } from "../helpers/app.ts";
import { eventually } from "../helpers/eventually.ts";
import { createIssue } from "../helpers/platform.ts";

const TIMEOUT_MS = 600;

/**
 * Sends `head`, then `piece` every `everyMs` until the server closes the connection; resolves with all it heard.
 * It resolves only if the server closes: the dribble alone would take far longer than any test's timeout.
 */
function dribble(
  url: string,
  everyMs: number,
  head = "POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{",
  piece = " ",
): Promise<{ response: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let response = "";
    let timer: NodeJS.Timeout | undefined;
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      response += chunk;
    });
    // A write racing the server's close fails with EPIPE; what the server said and when it closed is the result.
    socket.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE" && error.code !== "ECONNRESET") reject(error);
    });
    socket.on("close", () => {
      clearInterval(timer);
      resolve({ response });
    });
    socket.write(head);
    timer = setInterval(() => {
      if (!socket.destroyed) socket.write(piece);
    }, everyMs);
  });
}

describe("slow request bodies", () => {
  let t: TestApp;
  const streams: SseClient[] = [];
  beforeAll(async () => {
    t = await startTestApp("sqlite", {
      env: { REQUEST_BODY_TIMEOUT_MS: String(TIMEOUT_MS) },
      events: { keepAliveMs: 10_000 },
    });
  });
  afterAll(async () => {
    for (const stream of streams) stream.close();
    await t.close();
  });

  it("a body sent a byte at a time gets 408 {detail} and its connection closed", async () => {
    // 408: the limit's timer fired (a body in time is answered as usual: the next case).
    const { response } = await dribble(t.url, 150);
    expect(response).toMatch(/^HTTP\/1\.1 408 /);
    const body = JSON.parse(response.slice(response.indexOf("\r\n\r\n") + 4));
    expect(body).toEqual({ detail: expect.any(String) });
    // The server is unharmed for everyone else.
    expect((await t.api.get("/health")).status).toBe(200);
  });

  it("a body that arrives in pieces within the limit is read whole and answered as usual", async () => {
    const body = JSON.stringify({ email: "nobody@example.com", password: "correct horse battery" });
    const socket = connect(Number(new URL(t.url).port), "127.0.0.1");
    let response = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      response += chunk;
    });
    socket.write(
      `POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    socket.write(body.slice(0, 10));
    await new Promise((resolve) => setTimeout(resolve, TIMEOUT_MS / 3));
    socket.write(body.slice(10));
    await eventually(() => response.includes("}"), "the answer");
    socket.destroy();
    expect(response).toMatch(/^HTTP\/1\.1 404 /);
    expect(JSON.parse(response.slice(response.indexOf("\r\n\r\n") + 4))).toEqual({ detail: "User not found" });
  });

  it("a request head sent a line at a time gets 408 {detail} and its connection closed", async () => {
    const { response } = await dribble(t.url, 150, "GET /health HTTP/1.1\r\nHost: x\r\n", "X-Slow: yes\r\n");
    expect(response).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(response.slice(response.indexOf("\r\n\r\n") + 4))).toEqual({ detail: expect.any(String) });
  });

  it("a dribbled body the server never reads (a GET's) is cut at the limit too, without harm", async () => {
    // Answered at once (the route reads no body), and the connection is closed once the body is overdue.
    const { response } = await dribble(t.url, 150, "GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{");
    expect(response).toMatch(/^HTTP\/1\.1 200 /);
    expect((await t.api.get("/health")).status).toBe(200);
  });

  it("an event stream open far longer than the limit stays open and keeps delivering", async () => {
    const { token } = await registerUser(t.api, "listener");
    const ws = (await t.api.post("workspaces/", { name: "Stream" }, { token })).body.id as string;
    const stream = await SseClient.open(`${t.url}/api/v1/workspaces/${ws}/events/stream`, {
      authorization: `Bearer ${token}`,
    });
    streams.push(stream);
    expect(stream.status).toBe(200);
    // A request begun after the stream opened has been cut by the limit: any cut of the stream came earlier.
    expect((await dribble(t.url, 150)).response).toMatch(/^HTTP\/1\.1 408 /);
    expect(stream.ended).toBe(false);
    // Still open, and delivering: the event below is sent on it after that point.
    await createIssue(t.api, ws, token, { title: "After the limit" });
    const [event] = await stream.waitForEvents(1, 5000);
    expect(event?.event).toBe("issue.created");
    expect(stream.ended).toBe(false);
  });
});
