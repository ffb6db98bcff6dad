// How POST /agui reads in the OpenAPI document: its body is normalised by hand (request.ts), so it is described here.
import { errorResponseDocs, optionalCredential, type RouteDocs } from "../http/openapi.ts";

const message = {
  type: "object",
  properties: {
    id: { type: "string" },
    role: { type: "string", enum: ["user", "assistant", "system", "developer", "tool"] },
    content: { type: "string" },
  },
  required: ["role"],
};

export const aguiDocs: RouteDocs = {
  tags: ["agent-ui"],
  summary: "Run an agent for a thread, streamed as server-sent events (AG-UI)",
  description:
    "Body: the simple `{threadId, runId, state:{messages}}` or the official RunAgentInput (snake_case accepted). " +
    "A top-level `messages` array selects the official UPPER_SNAKE event names, otherwise the same names in lower " +
    "case; `?dialect=ag-ui` or `?dialect=lowercase` (alias `seed`) decides explicitly.",
  security: optionalCredential,
  body: {
    type: "object",
    properties: {
      threadId: { type: "string" },
      runId: { type: "string" },
      state: { type: "object", properties: { messages: { type: "array", items: message } } },
      messages: { type: "array", items: message, description: "Official RunAgentInput" },
      tools: { type: "array", items: { type: "object" }, description: "Tools the front end runs" },
      context: { type: "array", items: { type: "object" } },
      forwardedProps: { type: "object", properties: { agentId: { type: "string" } } },
    },
    required: ["threadId"],
  },
  response: {
    200: {
      description: "The run's events: run_started, text and tool-call events, then run_finished or run_error",
      content: { "text/event-stream": { schema: { type: "string" } } },
    },
    404: errorResponseDocs("Agent not found"),
  },
};
