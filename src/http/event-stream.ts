// A server-sent event stream written straight on the socket: the response head by hand (with the headers other
// hooks set, such as CORS), then frames until either side closes. The body ends when the connection does, so a
// stream holds only its socket, not a response object with chunked encoding on top.
import type { Socket } from "node:net";
import type { FastifyReply } from "fastify";
import { logRequest } from "./request-log.ts";

/** Takes over the reply's socket and sends the head of a `text/event-stream`; undefined if the client already left. */
export function openEventStream(reply: FastifyReply, firstFrames = ""): Socket | undefined {
  let head = "HTTP/1.1 200 OK\r\n";
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) head += `${name}: ${Array.isArray(value) ? value.join(", ") : value}\r\n`;
  }
  head +=
    "content-type: text/event-stream\r\ncache-control: no-cache\r\nx-accel-buffering: no\r\nconnection: close\r\n\r\n";
  reply.hijack();
  const socket = reply.raw.socket;
  if (!socket || socket.destroyed) return undefined;
  // A reply taken over this way never "finishes", so the request's one log line is written when the stream ends.
  socket.once("close", () => logRequest(reply.request, reply, "event stream closed"));
  socket.setNoDelay(true);
  socket.write(head + firstFrames);
  return socket;
}
