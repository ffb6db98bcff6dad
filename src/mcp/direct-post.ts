// Direct POST (seed: "POST /messages/ accepts one JSON-RPC message"): a message sent without a session is answered in
// the HTTP body, so curl and simple clients need no stream. A notification gets 202 and no body.
import type { FastifyReply } from "fastify";
import type { ToolContext } from "../tools/registry.ts";
import type { McpDispatcher } from "./dispatcher.ts";

export async function answerDirectPost(
  dispatcher: McpDispatcher,
  body: string,
  caller: ToolContext,
  reply: FastifyReply,
): Promise<void> {
  const outcome = await dispatcher.dispatchText(body, caller);
  if (outcome.response === undefined) return reply.code(202).send();
  return reply.code(200).header("content-type", "application/json; charset=utf-8").send(outcome.response);
}
