// How the tool-protocol routes read in the OpenAPI document: their bodies are JSON-RPC text handed to the dispatcher
// as is (a body that is not JSON is a JSON-RPC error, not a 422), so no zod schema describes them.
import { errorResponseDocs, optionalCredential, type RouteDocs } from "../http/openapi.ts";

const tags = ["tool protocol (MCP)"];
const jsonRpcRequest = {
  type: "object",
  description: "A JSON-RPC 2.0 request or notification: initialize, ping, tools/list, tools/call…",
  properties: {
    jsonrpc: { type: "string", enum: ["2.0"] },
    id: { oneOf: [{ type: "string" }, { type: "integer" }] },
    method: { type: "string", example: "tools/list" },
    params: { type: "object" },
  },
  required: ["jsonrpc", "method"],
};
const jsonRpcResponse = {
  type: "object",
  description: "A JSON-RPC 2.0 response: `result`, or `error` with the request's id",
  properties: {
    jsonrpc: { type: "string", enum: ["2.0"] },
    id: { anyOf: [{ type: "string", nullable: true }, { type: "integer" }], description: "null when unreadable" },
    result: { type: "object" },
    error: { type: "object", properties: { code: { type: "integer" }, message: { type: "string" } } },
  },
  required: ["jsonrpc"],
};
const workspaceQuery = {
  type: "object",
  properties: { workspace_id: { type: "string", description: "With a login token: the workspace whose tools to add" } },
};
const eventStream = (description: string) => ({
  description,
  content: { "text/event-stream": { schema: { type: "string" } } },
});
const jsonRpc = (description: string) => ({
  description,
  content: { "application/json": { schema: jsonRpcResponse } },
});
const accepted = {
  description: "A notification, or a message whose answer goes out on the session's stream",
  type: "null" as const,
};
const forbidden = errorResponseDocs("Not a member of the workspace named, or another principal's session");
const common = { tags, security: optionalCredential, consumes: ["application/json"] };

export const sseDocs: RouteDocs = {
  ...common,
  summary: "Open a legacy HTTP+SSE session",
  description: "The first event, `endpoint`, names the session's POST URL; replies follow as `message` events.",
  querystring: workspaceQuery,
  response: { 200: eventStream("`endpoint`, then `message` events and `: keepalive` comments"), 403: forbidden },
};

export const messagesDocs: RouteDocs = {
  ...common,
  summary: "Post one JSON-RPC message: to a legacy session, or without one for the answer in the body",
  querystring: {
    type: "object",
    properties: { session_id: { type: "string", description: "The session from GET /sse; omit for a direct answer" } },
  },
  body: jsonRpcRequest,
  response: {
    200: jsonRpc("The answer (direct POST, no session_id)"),
    202: accepted,
    400: errorResponseDocs("Missing or malformed session_id"),
    403: forbidden,
    404: errorResponseDocs("Session not found"),
  },
};

export const streamablePostDocs: RouteDocs = {
  ...common,
  summary: "Streamable HTTP (stateless): one JSON-RPC message in, its answer out",
  description: "JSON, or a one-event stream when the client accepts only `text/event-stream`.",
  querystring: workspaceQuery,
  body: jsonRpcRequest,
  response: {
    200: {
      description: "The answer; `initialize` also returns an `Mcp-Session-Id` header",
      content: { "application/json": { schema: jsonRpcResponse }, "text/event-stream": { schema: { type: "string" } } },
    },
    202: accepted,
    400: jsonRpc("A body that is not a readable JSON-RPC request (-32700, -32600)"),
    403: forbidden,
  },
};

export const streamableGetDocs: RouteDocs = {
  ...common,
  summary: "Not offered: this server opens no stream on GET",
  querystring: workspaceQuery,
  response: { 405: errorResponseDocs("This server opens no stream on GET /mcp") },
};

export const streamableDeleteDocs: RouteDocs = {
  ...common,
  summary: "End a session (stateless: nothing to end, always 200)",
  querystring: workspaceQuery,
  response: { 200: { description: "Ended", type: "null" }, 403: forbidden },
};
