// The model calling functions, as the realtime provider reports it, and the outputs the bridge sends back.
import type { ProviderConnection, WireMessage } from "./doubles/realtime-provider.ts";

export function functionCallItem(callId: string, name: string, args: string): WireMessage {
  return { id: `item_${callId}`, type: "function_call", status: "completed", call_id: callId, name, arguments: args };
}

/** The model calls functions the way OpenAI does: output_item.done for each, then response.done with all of them. */
export function modelCalls(
  provider: ProviderConnection,
  responseId: string,
  items: WireMessage[],
  itemDone = true,
): void {
  if (itemDone) {
    for (const item of items) provider.send({ type: "response.output_item.done", response_id: responseId, item });
  }
  provider.send({ type: "response.done", response: { id: responseId, status: "completed", output: items } });
}

export function outputsOf(provider: ProviderConnection): Array<{ callId: string; output: unknown }> {
  return provider
    .ofType("conversation.item.create")
    .filter((message) => message.item.type === "function_call_output")
    .map((message) => ({ callId: message.item.call_id, output: JSON.parse(message.item.output) }));
}
