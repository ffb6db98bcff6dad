// A local OpenAI-compatible model server for tests and benchmarks: a real node:http server that streams
// chat-completion chunks (text and tool calls) over SSE the way OpenAI does, scripted per test, and that
// records every request it got and whether the client hung up before the stream ended.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import { listenOnLoopback } from "./loopback.ts";

interface ScriptedToolCall {
  id?: string;
  name: string;
  /** An object is sent as its JSON; a string as is (so a test can send invalid JSON). */
  arguments: string | Record<string, unknown>;
}

/** What a response reports as OpenAI does: `prompt_tokens` includes the `cached_tokens`. */
export interface ScriptedUsage {
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens?: number;
}

const DEFAULT_USAGE: ScriptedUsage = { prompt_tokens: 11, completion_tokens: 7 };

export type ModelScript =
  /**
   * Streams the text (one chunk per array item, or word by word), then tool calls if any; the final usage chunk
   * (when asked for) reports `usage` (default 11 prompt tokens, none cached, 7 completion tokens).
   */
  | { text?: string | string[]; toolCalls?: ScriptedToolCall[]; chunkDelayMs?: number; usage?: ScriptedUsage }
  /** Answers with this HTTP error and an OpenAI-style error body. */
  | { status: number; message?: string }
  /** One good chunk, then a chunk that is not JSON. */
  | { malformed: true }
  /** Sends the headers and `text`, then nothing, holding the connection open. */
  | { stall: true; text?: string }
  /** Never answers: no status line, no headers, the connection held open. */
  | { hang: true }
  /** `count` one-word chunks, written as fast as the socket takes them (benchmarks). */
  | { words: number };

interface RecordedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
  /** True once the client closed the connection before the response ended. */
  abortedByClient: boolean;
  /** performance.now() when the request had arrived whole (latency figures). */
  receivedAt: number;
  /** Resolves when the response is over, either way. */
  done: Promise<void>;
}

export class TestModelServer {
  readonly requests: RecordedRequest[] = [];
  private readonly queue: ModelScript[] = [];
  private fallback: ModelScript = { text: "Hello from the test model." };
  private router: ((body: any) => ModelScript | undefined) | undefined;
  private readonly server: Server;
  private readonly open = new Set<ServerResponse>();
  private baseUrl = "";

  private constructor() {
    this.server = createServer((req, res) => {
      let raw = "";
      req.setEncoding("utf8");
      req.on("data", (chunk) => {
        raw += chunk;
      });
      req.on("end", () => {
        let markDone = () => {};
        const record: RecordedRequest = {
          path: req.url ?? "",
          headers: req.headers,
          body: safeJson(raw),
          abortedByClient: false,
          receivedAt: performance.now(),
          done: new Promise<void>((resolve) => {
            markDone = resolve;
          }),
        };
        this.requests.push(record);
        this.open.add(res);
        res.on("close", () => {
          if (!res.writableFinished) record.abortedByClient = true;
          this.open.delete(res);
          markDone();
        });
        if (!/\/chat\/completions$/.test(record.path)) {
          res.writeHead(404, { "content-type": "application/json" });
          res.end(JSON.stringify({ error: { message: "not found", type: "invalid_request_error" } }));
          return;
        }
        void this.respond(this.router?.(record.body) ?? this.queue.shift() ?? this.fallback, record, res);
      });
    });
  }

  static async start(): Promise<TestModelServer> {
    const model = new TestModelServer();
    model.baseUrl = `http://127.0.0.1:${await listenOnLoopback(model.server)}/v1`;
    return model;
  }

  /** The base URL to set as OPENAI_BASE_URL. */
  get url(): string {
    return this.baseUrl;
  }

  /** Scripts the next responses, in order; once used up, the default answers. */
  reply(...scripts: ModelScript[]): this {
    this.queue.push(...scripts);
    return this;
  }

  setDefault(script: ModelScript): this {
    this.fallback = script;
    return this;
  }

  /** Answers by what was asked: the script `route` returns wins over the queue (undefined: queue, then default). */
  routeBy(route: ((body: any) => ModelScript | undefined) | undefined): this {
    this.router = route;
    return this;
  }

  /** Responses still streaming (a stalled or aborted stream that was never closed shows here). */
  get openStreams(): number {
    return this.open.size;
  }

  reset(): void {
    this.queue.length = 0;
    this.requests.length = 0;
  }

  async close(): Promise<void> {
    for (const res of this.open) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async respond(script: ModelScript, request: RecordedRequest, res: ServerResponse): Promise<void> {
    if ("status" in script) {
      res.writeHead(script.status, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: script.message ?? "upstream failure", type: "server_error" } }));
      return;
    }
    if ("hang" in script) return; // the client must give up
    const model = String(request.body?.model ?? "test-model");
    const chunk = chunkWriter(model);
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    res.write(chunk({ role: "assistant", content: "" }));
    if ("malformed" in script) {
      res.write(chunk({ content: "Hel" }));
      res.end('data: {"id": "chatcmpl-broken", "choices": [\n\n');
      return;
    }
    if ("stall" in script) {
      if (script.text) res.write(chunk({ content: script.text }));
      return; // never ends: the client must give up
    }
    if ("words" in script) {
      for (let index = 0; index < script.words; index++) res.write(chunk({ content: index === 0 ? "word" : " word" }));
      finish(res, chunk, "stop", request, DEFAULT_USAGE);
      return;
    }
    const pieces = typeof script.text === "string" ? splitWords(script.text) : (script.text ?? []);
    for (const piece of pieces) {
      if (res.destroyed) return;
      res.write(chunk({ content: piece }));
      if (script.chunkDelayMs) await sleep(script.chunkDelayMs);
    }
    const calls = script.toolCalls ?? [];
    for (const [index, call] of calls.entries()) {
      const args = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
      const id = call.id ?? `call_${index}_${Math.random().toString(36).slice(2, 10)}`;
      res.write(chunk({ tool_calls: [{ index, id, type: "function", function: { name: call.name, arguments: "" } }] }));
      const middle = Math.ceil(args.length / 2);
      for (const part of [args.slice(0, middle), args.slice(middle)]) {
        if (part) res.write(chunk({ tool_calls: [{ index, function: { arguments: part } }] }));
      }
    }
    if (!res.destroyed) finish(res, chunk, calls.length > 0 ? "tool_calls" : "stop", request, script.usage);
  }
}

type ChunkWriter = (delta: Record<string, unknown>, finishReason?: string) => string;

function chunkWriter(model: string): ChunkWriter {
  const id = `chatcmpl-${Math.random().toString(36).slice(2, 12)}`;
  const created = Math.floor(Date.now() / 1000);
  const head = `data: {"id":"${id}","object":"chat.completion.chunk","created":${created},"model":${JSON.stringify(model)},"choices":[{"index":0,"delta":`;
  return (delta, finishReason) =>
    `${head}${JSON.stringify(delta)},"logprobs":null,"finish_reason":${finishReason ? JSON.stringify(finishReason) : "null"}}]}\n\n`;
}

function finish(
  res: ServerResponse,
  chunk: ChunkWriter,
  reason: string,
  request: RecordedRequest,
  scripted: ScriptedUsage = DEFAULT_USAGE,
): void {
  res.write(chunk({}, reason));
  if (request.body?.stream_options?.include_usage) {
    // OpenAI's last chunk with include_usage: no choices, the request's usage.
    const usage = {
      prompt_tokens: scripted.prompt_tokens,
      completion_tokens: scripted.completion_tokens,
      total_tokens: scripted.prompt_tokens + scripted.completion_tokens,
      prompt_tokens_details: { cached_tokens: scripted.cached_tokens ?? 0, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
    };
    const body = { id: "chatcmpl-usage", object: "chat.completion.chunk", created: 0, model: "m", choices: [], usage };
    res.write(`data: ${JSON.stringify(body)}\n\n`);
  }
  res.end("data: [DONE]\n\n");
}

function splitWords(text: string): string[] {
  return text.match(/\s*\S+/g) ?? [];
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
