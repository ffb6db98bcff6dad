// Function calls the model makes during a call: registry tools plus the built-in end_call.
// Every outcome becomes an output for the model (errors included); nothing here can end the call but end_call.
import type { ToolInvoker } from "../tools/invoker.ts";
import type { Tool, ToolContext } from "../tools/registry.ts";
import type { FunctionCall } from "./provider-client.ts";
import type { RealtimeToolDefinition } from "./session-config.ts";

export const END_CALL = "end_call";

export const endCallDefinition: RealtimeToolDefinition = {
  type: "function",
  name: END_CALL,
  description: "Hang up the phone call. Call it after saying goodbye, when the caller wants to end the call.",
  parameters: { type: "object", properties: { reason: { type: "string", description: "Why the call ends" } } },
};

export function realtimeDefinition(tool: Tool): RealtimeToolDefinition {
  return { type: "function", name: tool.name, description: tool.description, parameters: tool.inputSchema };
}

interface FunctionOutput {
  callId: string;
  /** JSON text, as the provider expects. */
  output: string;
}

interface FunctionCallsDone {
  outputs: FunctionOutput[];
  hangUp: boolean;
}

export class FunctionCallRunner {
  private readonly runs = new Map<string, Promise<FunctionOutput>>();

  constructor(
    private readonly tools: ToolInvoker,
    private readonly context: ToolContext,
  ) {}

  /** Starts a call as soon as its item is complete; a second start of the same call id is a no-op. */
  start(call: FunctionCall): void {
    if (this.runs.has(call.callId)) return;
    const run = this.run(call).catch((error: unknown) => ({
      callId: call.callId,
      output: JSON.stringify({ error: error instanceof Error ? error.message : String(error) }),
    }));
    this.runs.set(call.callId, run);
  }

  /** Waits for the calls of one finished response (starting any not yet started). */
  async finish(calls: FunctionCall[]): Promise<FunctionCallsDone> {
    for (const call of calls) this.start(call);
    const outputs = await Promise.all(calls.map((call) => this.runs.get(call.callId)!));
    for (const call of calls) this.runs.delete(call.callId);
    return { outputs, hangUp: calls.some((call) => call.name === END_CALL) };
  }

  private async run(call: FunctionCall): Promise<FunctionOutput> {
    const reply = (value: unknown) => ({ callId: call.callId, output: JSON.stringify(value ?? null) });
    if (call.name === END_CALL) return reply({ ok: true, message: "The call is ending." });
    const outcome = await this.tools.invoke(call.name, call.arguments, this.context);
    return outcome.ok ? reply(outcome.value) : reply({ error: outcome.error });
  }
}
