// The baseline: a hand-written JSON-RPC echo on node:http, no SDK, no framework, with the same bytes on the wire as
// ours: POST /mcp answers in the body; GET /sse writes its head and frames straight on the socket (body ended by the
// connection), and POST /messages/?session_id= answers 202 with the reply on that stream.
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { Socket } from "node:net";
import { reportMemoryOnSignal } from "./memory-on-signal.ts";

const streams = new Map<string, Socket>();

function answer(body: string): string {
  const message = JSON.parse(body);
  const text = JSON.stringify(message.params?.arguments ?? {});
  return JSON.stringify({ jsonrpc: "2.0", id: message.id, result: { content: [{ type: "text", text }] } });
}

const server = http.createServer((request, response) => {
  if (request.method === "GET" && request.url === "/sse") {
    const sessionId = randomBytes(16).toString("hex");
    const socket = response.socket as Socket;
    socket.setNoDelay(true);
    socket.write(
      "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n" +
        `event: endpoint\ndata: /messages/?session_id=${sessionId}\n\n`,
    );
    streams.set(sessionId, socket);
    socket.once("close", () => streams.delete(sessionId));
    return;
  }
  let body = "";
  request.setEncoding("utf8");
  request.on("data", (chunk: string) => {
    body += chunk;
  });
  request.on("end", () => {
    if (request.url === "/mcp") {
      response.writeHead(200, { "content-type": "application/json" }).end(answer(body));
      return;
    }
    const sessionId = new URL(request.url ?? "/", "http://x").searchParams.get("session_id") ?? "";
    const stream = streams.get(sessionId);
    if (!stream) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(202).end();
    stream.write(`event: message\ndata: ${answer(body)}\n\n`);
  });
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address() as { port: number };
  console.log(`http://127.0.0.1:${address.port}`);
});
reportMemoryOnSignal();
process.on("SIGTERM", () => {
  for (const stream of streams.values()) stream.end();
  server.close(() => process.exit(0));
});
