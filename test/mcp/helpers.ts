// Raw HTTP and SSE clients for the tool-protocol tests, plus a server with a few known custom tools.
import http from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { generateApiKey } from "../../src/auth/api-key-secrets.ts";
import type { Db, SqlDialect } from "../../src/db/index.ts";
import { newId, now } from "../../src/db/values.ts";
import type { Tool } from "../../src/tools/registry.ts";
import { type StartOptions, startTestApp, type TestApp } from "../helpers/app.ts";
import { registryWith } from "../helpers/registry.ts";

export const echoTool: Tool = {
  name: "echo",
  description: "Returns its text",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  run: async (args) => ({ echoed: args.text }),
};

export const throwingTool: Tool = {
  name: "explode",
  description: "Always fails",
  inputSchema: { type: "object", properties: {} },
  run: async () => {
    throw new Error("the tool blew up");
  },
};

export const whoAmITool: Tool = {
  name: "whoami",
  description: "Reports the caller's scope",
  inputSchema: { type: "object", properties: {} },
  run: async (_args, ctx) => ({ workspaceId: ctx.workspaceId ?? null, userId: ctx.userId ?? null }),
};

export async function startMcpApp(
  dialect: SqlDialect = "sqlite",
  options: StartOptions & { tools?: Tool[] } = {},
): Promise<TestApp> {
  const { tools = [echoTool, throwingTool, whoAmITool], ...rest } = options;
  return startTestApp(dialect, { registry: rest.registry ?? registryWith(...tools), ...rest });
}

/** A workspace API key stored the way the API-keys service stores one. */
export async function insertApiKey(db: Db, workspaceId: string, userId: string): Promise<string> {
  const { key, prefix, hash } = generateApiKey();
  await db
    .insertInto("api_keys")
    .values({
      id: newId(),
      workspace_id: workspaceId,
      name: "test key",
      prefix,
      key_hash: hash,
      created_by: userId,
      created_at: now(),
      last_used_at: null,
    })
    .execute();
  return key;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json(): any;
}

/** A plain node:http request, so tests can send any Host header and any body. */
export function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  const url = new URL(path, baseUrl);
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method, headers: { ...headers } }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk) => chunks.push(chunk));
      response.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json: () => JSON.parse(text) });
      });
    });
    request.on("error", reject);
    if (body !== undefined) request.end(body);
    else request.end();
  });
}

export const postJson = (baseUrl: string, path: string, message: unknown, headers: Record<string, string> = {}) =>
  rawRequest(baseUrl, "POST", path, typeof message === "string" ? message : JSON.stringify(message), {
    "content-type": "application/json",
    ...headers,
  });

export interface SseEvent {
  event: string;
  data: string;
}

/** An open GET /sse stream that collects its events and comments. */
export class RawSseStream {
  readonly events: SseEvent[] = [];
  comments = 0;
  status = 0;
  /** The server ended the stream. */
  ended = false;
  headers: http.IncomingHttpHeaders = {};
  private buffer = "";
  private waiters: (() => void)[] = [];
  private request!: http.ClientRequest;
  private response?: http.IncomingMessage;

  static open(baseUrl: string, headers: Record<string, string> = {}, path = "/sse"): Promise<RawSseStream> {
    const stream = new RawSseStream();
    return new Promise((resolve, reject) => {
      stream.request = http.get(new URL(path, baseUrl), { headers }, (response) => {
        stream.response = response;
        stream.status = response.statusCode ?? 0;
        stream.headers = response.headers;
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => stream.receive(chunk));
        response.on("end", () => {
          stream.ended = true;
        });
        resolve(stream);
      });
      stream.request.on("error", reject);
    });
  }

  /** The POST path of this session (from the endpoint event). */
  async endpoint(): Promise<string> {
    const event = await this.next((candidate) => candidate.event === "endpoint");
    return event.data;
  }

  /** The first event matching, waiting up to timeoutMs for it. */
  async next(match: (event: SseEvent) => boolean, timeoutMs = 5_000): Promise<SseEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events.find(match);
      if (found) return found;
      if (Date.now() > deadline) throw new Error("timed out waiting for an SSE event");
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 50);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The JSON-RPC message with this id. */
  async reply(id: number | string): Promise<any> {
    const event = await this.next((candidate) => candidate.event === "message" && JSON.parse(candidate.data).id === id);
    return JSON.parse(event.data);
  }

  messages(): any[] {
    return this.events.filter((event) => event.event === "message").map((event) => JSON.parse(event.data));
  }

  close(): void {
    this.request.destroy();
    this.response?.destroy();
  }

  private receive(chunk: string): void {
    this.buffer += chunk;
    let end = this.buffer.indexOf("\n\n");
    while (end !== -1) {
      const frame = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      if (frame.startsWith(":")) this.comments += 1;
      else {
        let event = "message";
        const data: string[] = [];
        for (const line of frame.split("\n")) {
          if (line.startsWith("event: ")) event = line.slice(7);
          else if (line.startsWith("data: ")) data.push(line.slice(6));
        }
        this.events.push({ event, data: data.join("\n") });
      }
      end = this.buffer.indexOf("\n\n");
    }
    for (const wake of this.waiters.splice(0)) wake();
  }
}

export const call = (id: number | string, name: string, args?: unknown) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: args === undefined ? { name } : { name, arguments: args },
});

export async function connectClient(transport: Transport): Promise<Client> {
  const client = new Client({ name: "test-client", version: "1.0.0" });
  await client.connect(transport);
  return client;
}
