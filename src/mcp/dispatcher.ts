// The tool protocol's JSON-RPC 2.0 core: methods, errors and ids. It knows nothing of HTTP; each transport hands it
// the raw text of one message and moves the answer back.
//
// Batches: the current protocol revision (2025-06-18 and later) removed JSON-RPC batching, and no official client sends
// one, so a JSON array is answered with a single -32600 Invalid request (id null) rather than processed.
//
// Messages are checked by hand rather than through the SDK's zod schemas: that check runs on every call and is the
// whole cost of a trivial tool call; the shapes it accepts and returns are the SDK's types.
import {
  type CallToolResult,
  ErrorCode,
  type InitializeResult,
  type JSONRPCErrorResponse,
  LATEST_PROTOCOL_VERSION,
  type Tool as McpTool,
  type RequestId,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
import type { ToolInvoker } from "../tools/invoker.ts";
import type { Tool, ToolContext } from "../tools/registry.ts";

/** The seed's error table, defined once. */
const RPC_ERRORS = {
  parse: { code: ErrorCode.ParseError, message: "Parse error" },
  invalidRequest: { code: ErrorCode.InvalidRequest, message: "Invalid request" },
  methodNotFound: { code: ErrorCode.MethodNotFound, message: "Method not found" },
  invalidParams: { code: ErrorCode.InvalidParams, message: "Invalid params" },
  internal: { code: ErrorCode.InternalError, message: "Internal error" },
} as const;

type RpcError = (typeof RPC_ERRORS)[keyof typeof RPC_ERRORS];

/** An error response whose id may be null (parse errors, unreadable ids), which the SDK's type leaves out. */
type RpcErrorResponse = Omit<JSONRPCErrorResponse, "id"> & { id: RequestId | null };

export interface ServerInfo {
  name: string;
  version: string;
}

/** What one inbound message produced. */
interface DispatchOutcome {
  /** The serialized response; absent for a notification or a client's response to us. */
  response?: string;
  /** The message was not a readable request (-32700, -32600): a transport that can say so answers HTTP 400. */
  malformed?: boolean;
  /** The request's method, when it named one. */
  method?: string;
}

const NO_RESPONSE: DispatchOutcome = {};
const malformed = (id: RequestId | null, rpc: RpcError): DispatchOutcome => ({
  response: errorResponse(id, rpc),
  malformed: true,
});

type Params = Record<string, unknown>;

class RpcFailure extends Error {
  constructor(readonly rpc: RpcError) {
    super(rpc.message);
  }
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const isRequestId = (value: unknown): value is RequestId =>
  typeof value === "string" || (typeof value === "number" && Number.isFinite(value));

function errorResponse(id: RequestId | null, rpc: RpcError): string {
  const response: RpcErrorResponse = { jsonrpc: "2.0", id, error: { code: rpc.code, message: rpc.message } };
  return JSON.stringify(response);
}

/** A result already serialized to JSON, placed in the response as it is. */
class SerializedResult {
  constructor(readonly json: string) {}
}

export class McpDispatcher {
  private readonly initializeCapabilities = { tools: { listChanged: true } };
  /** Tools are immutable once made (the platform's are made once, at start): each is serialized once. */
  private readonly toolJsons = new WeakMap<Tool, string>();

  constructor(
    private readonly tools: ToolInvoker,
    private readonly serverInfo: ServerInfo,
    /** Told about unexpected failures (answered as -32603); the message never reaches the client. */
    private readonly onInternalError: (error: unknown) => void = () => {},
  ) {}

  /** Handles the text of one message; never throws. */
  async dispatchText(text: string, caller: ToolContext): Promise<DispatchOutcome> {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return malformed(null, RPC_ERRORS.parse);
    }
    return this.dispatch(message, caller);
  }

  /** Handles one already-parsed message; never throws. */
  private async dispatch(message: unknown, caller: ToolContext): Promise<DispatchOutcome> {
    if (!isPlainObject(message)) return malformed(null, RPC_ERRORS.invalidRequest);
    const hasId = "id" in message;
    const rawId = message.id;
    if (hasId && !isRequestId(rawId)) return malformed(null, RPC_ERRORS.invalidRequest);
    const id = hasId ? (rawId as RequestId) : null;
    if (message.jsonrpc !== "2.0") return malformed(id, RPC_ERRORS.invalidRequest);
    const method = message.method;
    if (method === undefined && hasId && ("result" in message || "error" in message)) return NO_RESPONSE;
    if (typeof method !== "string") return malformed(id, RPC_ERRORS.invalidRequest);
    // A notification is never answered, whatever it names.
    if (!hasId) return { method };
    const params = message.params;
    if (params !== undefined && !isPlainObject(params)) {
      return { response: errorResponse(id, RPC_ERRORS.invalidParams), method };
    }
    try {
      const result = await this.run(method, params ?? {}, caller);
      const json = result instanceof SerializedResult ? result.json : JSON.stringify(result);
      return { response: `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${json}}`, method };
    } catch (error) {
      if (error instanceof RpcFailure) return { response: errorResponse(id, error.rpc), method };
      this.onInternalError(error);
      return { response: errorResponse(id, RPC_ERRORS.internal), method };
    }
  }

  private run(method: string, params: Params, caller: ToolContext): Promise<unknown> | unknown {
    switch (method) {
      case "tools/call":
        return this.callTool(params, caller);
      case "tools/list":
        return this.listTools(caller);
      case "initialize":
        return this.initialize(params);
      case "ping":
        return {};
      default:
        throw new RpcFailure(RPC_ERRORS.methodNotFound);
    }
  }

  private initialize(params: Params): InitializeResult {
    const requested = params.protocolVersion;
    if (typeof requested !== "string") throw new RpcFailure(RPC_ERRORS.invalidParams);
    return {
      protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION,
      capabilities: this.initializeCapabilities,
      serverInfo: this.serverInfo,
    };
  }

  /** A `ListToolsResult`, serialized from each tool's JSON, which is kept for as long as the tool object lives. */
  private async listTools(caller: ToolContext): Promise<SerializedResult> {
    const tools = await this.tools.list(caller);
    return new SerializedResult(`{"tools":[${tools.map((tool) => this.toolJson(tool)).join(",")}]}`);
  }

  private toolJson(tool: Tool): string {
    let json = this.toolJsons.get(tool);
    if (json === undefined) {
      const listed: McpTool = {
        name: tool.name,
        description: tool.description,
        // Our schemas are plain JSON Schema objects; the SDK's type narrows property values to `object`.
        inputSchema: tool.inputSchema as McpTool["inputSchema"],
      };
      json = JSON.stringify(listed);
      this.toolJsons.set(tool, json);
    }
    return json;
  }

  private async callTool(params: Params, caller: ToolContext): Promise<CallToolResult> {
    const name = params.name;
    const args = params.arguments ?? {};
    if (typeof name !== "string" || !isPlainObject(args)) throw new RpcFailure(RPC_ERRORS.invalidParams);
    const tool = await this.tools.find(name, caller);
    if (!tool) throw new RpcFailure(RPC_ERRORS.invalidParams);
    const outcome = await this.tools.call(tool, args, caller);
    if (!outcome.ok) return { content: [{ type: "text", text: outcome.error }], isError: true };
    return toCallResult(outcome.value);
  }
}

/** A tool's value as protocol content: text always, and the object itself as structuredContent when it is one. */
function toCallResult(value: unknown): CallToolResult {
  let text: string;
  try {
    text = typeof value === "string" ? value : value === undefined ? "" : (JSON.stringify(value) ?? "");
  } catch {
    return { content: [{ type: "text", text: "Tool result is not JSON-serializable" }], isError: true };
  }
  const result: CallToolResult = { content: [{ type: "text", text }] };
  if (isPlainObject(value)) result.structuredContent = value;
  return result;
}
