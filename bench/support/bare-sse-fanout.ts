// The baseline for `npm run bench -- events`: a bare node:http server that fans each POSTed change out to every open
// event stream, as the same frames (`id`, `event`, `data` = the change with its seq and time), with no database,
// authentication or framework. Prints its URL on stdout, and its memory on SIGUSR2.

import { randomUUID } from "node:crypto";
import http from "node:http";
import type { Socket } from "node:net";
import { reportMemoryOnSignal } from "./memory-on-signal.ts";

const streams = new Set<Socket>();
let seq = 0;

const micros = () => {
  const now = performance.timeOrigin + performance.now();
  const iso = new Date(Math.floor(now)).toISOString().slice(0, 19);
  return `${iso}.${String(Math.floor(now * 1000) % 1_000_000).padStart(6, "0")}`;
};

const server = http.createServer((request, response) => {
  if (request.method === "GET") {
    const socket = response.socket!;
    response.detachSocket(socket);
    socket.write(
      "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n",
    );
    streams.add(socket);
    socket.on("close", () => streams.delete(socket));
    return;
  }
  let body = "";
  request.setEncoding("utf8");
  request.on("data", (chunk: string) => {
    body += chunk;
  });
  request.on("end", () => {
    const change = JSON.parse(body) as Record<string, unknown>;
    seq += 1;
    const event = { id: randomUUID(), seq, ...change, created_at: micros() };
    const frame = `id: ${seq}\nevent: ${String(change.type)}\ndata: ${JSON.stringify(event)}\n\n`;
    for (const socket of streams) socket.write(frame);
    response.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify(event));
  });
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address() as { port: number };
  console.log(`http://127.0.0.1:${address.port}`);
});
reportMemoryOnSignal();
process.on("SIGTERM", () => process.exit(0));
