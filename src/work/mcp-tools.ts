// The tools of an agent's MCP servers (`runtime_config.mcp_servers`), for one run: each server is reached with the
// official SDK client (Streamable HTTP, falling back to legacy SSE; or a stdio child process), and each of its tools
// is offered as `<server>__<tool>`. A server that cannot be reached in time fails the run with an error naming it.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FetchLike, Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpServerConfig } from "../platform/agents/schemas.ts";
import type { JsonSchemaObject, Tool } from "../tools/registry.ts";

const CLIENT_INFO = { name: "agent-platform", version: "0.1.0" };
/** What a stdio server last wrote to stderr, kept to explain a failed start. */
const STDERR_TAIL_BYTES = 2000;

/** A server of the agent's configuration could not be reached: the run fails with this message. */
export class McpServerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "McpServerError";
  }
}

export interface McpToolset {
  tools: Tool[];
  close(): Promise<void>;
}

export const NO_MCP_TOOLS: McpToolset = { tools: [], close: async () => {} };

interface McpConnectOptions {
  timeoutMs: number;
  signal: AbortSignal;
  /** Every HTTP request to the servers goes through it (mcp-fetch.ts checks where it connects). */
  fetch: FetchLike;
}

/** Connects to every server (all at once); if one fails, the others are closed and the error names it. */
export async function connectMcpServers(servers: McpServerConfig[], options: McpConnectOptions): Promise<McpToolset> {
  if (servers.length === 0) return NO_MCP_TOOLS;
  const attempts = await Promise.allSettled(servers.map((server) => connectOne(server, options)));
  const connected = attempts.flatMap((attempt) => (attempt.status === "fulfilled" ? [attempt.value] : []));
  const close = async () => {
    await Promise.all(connected.map((server) => server.client.close().catch(() => {})));
  };
  const failed = attempts.find((attempt) => attempt.status === "rejected");
  if (failed) {
    await close();
    throw failed.reason;
  }
  return { tools: connected.flatMap((server) => server.tools), close };
}

interface ConnectedServer {
  client: Client;
  tools: Tool[];
}

async function connectOne(server: McpServerConfig, options: McpConnectOptions): Promise<ConnectedServer> {
  const where = server.url ? server.url : `command ${server.command}`;
  const failure = (reason: string) =>
    new McpServerError(`MCP server "${server.name}" (${where}) could not be reached: ${reason}`);
  let stderrTail = "";
  const withinTime = <T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> => {
    const signal = AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs)]);
    return new Promise<T>((resolve, reject) => {
      const onAbort = () =>
        reject(options.signal.aborted ? options.signal.reason : failure(`no answer within ${options.timeoutMs} ms`));
      signal.addEventListener("abort", onAbort, { once: true });
      work(signal)
        .then(resolve, reject)
        .finally(() => signal.removeEventListener("abort", onAbort));
    });
  };
  const open = async (transport: Transport): Promise<Client> => {
    const client = new Client(CLIENT_INFO);
    try {
      await withinTime((signal) => client.connect(transport, { signal, timeout: options.timeoutMs }));
      return client;
    } catch (error) {
      await client.close().catch(() => {});
      throw error;
    }
  };

  let client: Client;
  try {
    if (server.url) {
      const url = new URL(server.url);
      const requestInit = server.headers ? { headers: server.headers } : undefined;
      try {
        client = await open(new StreamableHTTPClientTransport(url, { requestInit, fetch: options.fetch }));
      } catch (error) {
        if (options.signal.aborted || error instanceof McpServerError) throw error;
        // A server of the older protocol answers the Streamable HTTP request with an error: try legacy SSE.
        client = await open(new SSEClientTransport(url, { requestInit, fetch: options.fetch }));
      }
    } else {
      const transport = new StdioClientTransport({
        command: server.command!,
        args: server.args ?? [],
        env: { ...getDefaultEnvironment(), ...server.env },
        stderr: "pipe",
      });
      transport.stderr?.on("data", (chunk: Buffer) => {
        stderrTail = (stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL_BYTES);
      });
      client = await open(transport);
    }
  } catch (error) {
    if (options.signal.aborted || error instanceof McpServerError) throw error;
    const detail = error instanceof Error ? error.message : String(error);
    throw failure(stderrTail.trim() ? `${detail} (stderr: ${stderrTail.trim().split("\n").at(-1)})` : detail);
  }

  try {
    const listed = await withinTime((signal) => client.listTools(undefined, { signal, timeout: options.timeoutMs }));
    return { client, tools: listed.tools.map((tool) => asTool(server.name, client, tool)) };
  } catch (error) {
    await client.close().catch(() => {});
    if (options.signal.aborted || error instanceof McpServerError) throw error;
    throw failure(`listing its tools failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

interface ListedTool {
  name: string;
  description?: string | undefined;
  inputSchema: { type: "object"; [key: string]: unknown };
}

function asTool(serverName: string, client: Client, tool: ListedTool): Tool {
  return {
    name: `${serverName}__${tool.name}`,
    description: tool.description ?? "",
    inputSchema: tool.inputSchema as JsonSchemaObject,
    run: async (args, ctx) => {
      const result = await client.callTool(
        { name: tool.name, arguments: args },
        undefined,
        ctx.signal ? { signal: ctx.signal } : undefined,
      );
      const text = textOf(result.content);
      if (result.isError) throw new Error(text || `${tool.name} failed`);
      return result.structuredContent ?? text;
    },
  };
}

function textOf(content: unknown): string {
  if (!Array.isArray(content)) return "";
  return content
    .map((part: { type?: string; text?: string }) => (part.type === "text" ? (part.text ?? "") : JSON.stringify(part)))
    .join("\n");
}
