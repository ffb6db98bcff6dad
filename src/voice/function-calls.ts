// Function calls the model makes during a call: registry tools plus the call's built-in functions (call-control.ts).
// Every outcome becomes an output for the model (errors included).
import type { ToolInvoker } from "../tools/invoker.ts";
import type { Tool, ToolContext } from "../tools/registry.ts";
import type { FunctionCall } from "./provider-client.ts";
import type { RealtimeToolDefinition } from "./session-config.ts";

export function realtimeDefinition(tool: Tool): RealtimeToolDefinition {
  return { type: "function", name: tool.name, description: tool.description, parameters: tool.inputSchema };
}

interface FunctionOutput {
  callId: string;
  /** JSON text, as the provider expects. */
  output: string;
}

export class FunctionCallRunner {
  private readonly runs = new Map<string, Promise<FunctionOutput>>();

  constructor(
    private readonly tools: ToolInvoker,
    private readonly context: ToolContext,
    /** The tools offered to the model, by name: only these run (a name the model made up is unknown). */
    private readonly offered: ReadonlyMap<string, Tool>,
    /** Built-in functions: run only once their response is done, so all of its audio has been sent to the caller. */
    private readonly builtIns: ReadonlyMap<string, Tool> = new Map(),
  ) {}

  /** Starts a registry tool as soon as its item is complete; a second start of the same call id is a no-op. */
  start(call: FunctionCall): void {
    if (this.runs.has(call.callId) || this.builtIns.has(call.name)) return;
    this.runs.set(call.callId, this.run(call));
  }

  /** Waits for the calls of one finished response (starting any not yet started); built-ins run after the rest. */
  async finish(calls: FunctionCall[]): Promise<FunctionOutput[]> {
    for (const call of calls) this.start(call);
    const tools = await Promise.all(calls.map((call) => this.runs.get(call.callId)));
    const outputs: FunctionOutput[] = [];
    for (const [index, call] of calls.entries()) {
      outputs.push(tools[index] ?? (await this.run(call)));
      this.runs.delete(call.callId);
    }
    return outputs;
  }

  private async run(call: FunctionCall): Promise<FunctionOutput> {
    const reply = (value: unknown) => ({ callId: call.callId, output: JSON.stringify(value ?? null) });
    const tool = this.builtIns.get(call.name) ?? this.offered.get(call.name);
    if (!tool) return reply({ error: `Unknown tool: ${call.name}` });
    try {
      const outcome = await this.tools.invoke(call.name, call.arguments, this.context, tool);
      return outcome.ok ? reply(outcome.value) : reply({ error: outcome.error });
    } catch (error) {
      return reply({ error: error instanceof Error ? error.message : String(error) });
    }
  }
}
