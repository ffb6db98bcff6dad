// A local Anthropic Messages API server for tests: a real node:http server that streams `POST /v1/messages`
// the way Anthropic does (message_start, content blocks with text and input_json deltas, message_delta, message_stop),
// scripted per test, recording the requests it got.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import { listenOnLoopback } from "./loopback.ts";

export type AnthropicScript =
  | { text?: string[]; toolUses?: { id: string; name: string; input: Record<string, unknown> }[] }
  | { status: number; message?: string }
  /** Never answers: no status line, no headers, the connection held open. */
  | { hang: true };

export interface AnthropicRequest {
  headers: IncomingHttpHeaders;
  body: any;
}

export class TestAnthropicServer {
  readonly requests: AnthropicRequest[] = [];
  private readonly queue: AnthropicScript[] = [];
  private readonly server: Server;
  private baseUrl = "";

  private constructor() {
    this.server = createServer((req, res) => {
      let raw = "";
      req.setEncoding("utf8");
      req.on("data", (chunk) => {
        raw += chunk;
      });
      req.on("end", () => {
        this.requests.push({ headers: req.headers, body: JSON.parse(raw || "null") });
        if (req.url !== "/v1/messages") {
          res.writeHead(404, { "content-type": "application/json" });
          res.end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: "not found" } }));
          return;
        }
        respond(this.queue.shift() ?? { text: ["Hello", " from Claude."] }, res);
      });
    });
  }

  static async start(): Promise<TestAnthropicServer> {
    const server = new TestAnthropicServer();
    server.baseUrl = `http://127.0.0.1:${await listenOnLoopback(server.server)}`;
    return server;
  }

  /** The base URL to set as ANTHROPIC_BASE_URL. */
  get url(): string {
    return this.baseUrl;
  }

  reply(...scripts: AnthropicScript[]): this {
    this.queue.push(...scripts);
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function respond(script: AnthropicScript, res: ServerResponse): void {
  if ("hang" in script) return; // the client must give up
  if ("status" in script) {
    res.writeHead(script.status, { "content-type": "application/json" });
    res.end(JSON.stringify({ type: "error", error: { type: "api_error", message: script.message ?? "failure" } }));
    return;
  }
  const send = (type: string, data: object) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  send("message_start", {
    message: {
      id: "msg_test",
      type: "message",
      role: "assistant",
      model: "claude-test",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 12, output_tokens: 1 },
    },
  });
  let index = 0;
  if (script.text?.length) {
    send("content_block_start", { index, content_block: { type: "text", text: "" } });
    for (const text of script.text) send("content_block_delta", { index, delta: { type: "text_delta", text } });
    send("content_block_stop", { index });
    index++;
  }
  for (const use of script.toolUses ?? []) {
    send("content_block_start", { index, content_block: { type: "tool_use", id: use.id, name: use.name, input: {} } });
    const json = JSON.stringify(use.input);
    const middle = Math.ceil(json.length / 2);
    for (const part of [json.slice(0, middle), json.slice(middle)]) {
      send("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: part } });
    }
    send("content_block_stop", { index });
    index++;
  }
  send("message_delta", {
    delta: { stop_reason: script.toolUses?.length ? "tool_use" : "end_turn", stop_sequence: null },
    usage: { output_tokens: 9 },
  });
  send("message_stop", {});
  res.end();
}
