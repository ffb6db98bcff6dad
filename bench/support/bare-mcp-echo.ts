// The baseline: a hand-written JSON-RPC echo on node:http, no SDK, no framework, with the same framing as ours:
// POST /mcp answers in the body; GET /sse + POST /messages/?session_id= answer 202 and reply on the stream.
import { randomUUID } from "node:crypto";
import http, { type ServerResponse } from "node:http";
import v8 from "node:v8";
import { runInNewContext } from "node:vm";

const streams = new Map<string, ServerResponse>();

function answer(body: string): string {
  const message = JSON.parse(body);
  const text = JSON.stringify(message.params?.arguments ?? {});
  return JSON.stringify({ jsonrpc: "2.0", id: message.id, result: { content: [{ type: "text", text }] } });
}

const server = http.createServer((request, response) => {
  if (request.method === "GET" && request.url === "/sse") {
    const sessionId = randomUUID().replaceAll("-", "");
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    response.write(`event: endpoint\ndata: /messages/?session_id=${sessionId}\n\n`);
    streams.set(sessionId, response);
    response.once("close", () => streams.delete(sessionId));
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
v8.setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;
process.on("SIGUSR2", () => {
  collectGarbage();
  console.log(JSON.stringify(process.memoryUsage()));
});
process.on("SIGTERM", () => {
  for (const stream of streams.values()) stream.end();
  server.close(() => process.exit(0));
});
