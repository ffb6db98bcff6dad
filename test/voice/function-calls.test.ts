import { afterEach, describe, expect, it } from "vitest";
import type { Tool } from "../../src/tools/registry.ts";
import { eventually } from "../helpers/eventually.ts";
import { CarrierCall } from "./doubles/carrier.ts";
import type { ProviderConnection } from "./doubles/realtime-provider.ts";
import { functionCallItem, modelCalls, outputsOf } from "./function-call-items.ts";
import { type Harness, settle, settleFromProvider, startHarness } from "./harness.ts";
import { speechUlaw } from "./speech.ts";

const lookupOrder: Tool = {
  name: "lookup_order",
  description: "Finds an order by number",
  inputSchema: { type: "object", properties: { order: { type: "integer" } }, required: ["order"] },
  run: async ({ order }) => ({ order, status: "shipped", items: 3 }),
};
const brokenTool: Tool = {
  name: "broken_tool",
  description: "Always fails",
  inputSchema: { type: "object", properties: {} },
  run: async () => {
    throw new Error("inventory service unavailable");
  },
};
let toolSignal: AbortSignal | undefined;
const slowTool: Tool = {
  name: "slow_tool",
  description: "Waits until the call ends",
  inputSchema: { type: "object", properties: {} },
  run: async (_args, context) => {
    toolSignal = context.signal;
    await new Promise((resolve) => context.signal?.addEventListener("abort", resolve));
    return "never used";
  },
};

const hangingTool: Tool = {
  name: "hanging_tool",
  description: "Never returns, whatever happens",
  inputSchema: { type: "object", properties: {} },
  run: () => new Promise(() => {}),
};

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function connectedCall(
  env?: Record<string, string>,
): Promise<{ call: CarrierCall; provider: ProviderConnection }> {
  harness = await startHarness({ dialect: "ga", tools: [lookupOrder, brokenTool, slowTool, hangingTool], env });
  const call = await CarrierCall.place(harness.server.url, { autoAckMarks: true });
  const provider = await harness.provider.connection();
  await provider.waitForType("session.update", 2);
  return { call, provider };
}

describe("function calls during a call", () => {
  it("runs a registry tool, returns its output as JSON and asks for a new response", async () => {
    const { provider } = await connectedCall();
    modelCalls(provider, "resp_1", [functionCallItem("call_1", "lookup_order", '{"order":42}')]);
    await provider.waitForType("response.create");
    expect(outputsOf(provider)).toEqual([{ callId: "call_1", output: { order: 42, status: "shipped", items: 3 } }]);
    const types = provider.received.map((message) => message.type);
    expect(types.indexOf("conversation.item.create")).toBeLessThan(types.indexOf("response.create"));
    expect(provider.ofType("response.create")).toHaveLength(1);
  });

  it("also works when the provider reports the call only in response.done (run once, not twice)", async () => {
    const { provider } = await connectedCall();
    modelCalls(provider, "resp_1", [functionCallItem("call_1", "lookup_order", '{"order":7}')], false);
    await provider.waitForType("response.create");
    expect(outputsOf(provider)).toEqual([{ callId: "call_1", output: { order: 7, status: "shipped", items: 3 } }]);
  });

  it("an unknown tool, a throwing tool and bad arguments give error outputs, and the call goes on", async () => {
    const { call, provider } = await connectedCall();
    modelCalls(provider, "resp_1", [
      functionCallItem("call_a", "no_such_tool", "{}"),
      functionCallItem("call_b", "broken_tool", "{}"),
      functionCallItem("call_c", "lookup_order", '{"order":"forty-two"}'),
      functionCallItem("call_d", "lookup_order", "{not json"),
    ]);
    await provider.waitForType("response.create");
    expect(outputsOf(provider)).toEqual([
      { callId: "call_a", output: { error: "Unknown tool: no_such_tool" } },
      { callId: "call_b", output: { error: "inventory service unavailable" } },
      { callId: "call_c", output: { error: "Invalid arguments for lookup_order: order must be integer" } },
      { callId: "call_d", output: { error: "Arguments for lookup_order are not valid JSON" } },
    ]);

    // The call is still up both ways.
    const speech = speechUlaw("Are you still there?");
    call.sendAudio(speech);
    await provider.waitFor(() => provider.appendedAudio().length === speech.length);
    provider.sendAudio("item_2", speechUlaw("Yes, I am."));
    await call.waitFor(() => call.ofEvent("media").length > 0);
    modelCalls(provider, "resp_2", [functionCallItem("call_e", "lookup_order", '{"order":1}')]);
    await provider.waitForType("response.create", 2);
  });

  it("end_call lets the goodbye finish playing, then hangs up both sides and ends the call record", async () => {
    harness = await startHarness({ dialect: "ga" });
    const call = await CarrierCall.place(harness.server.url);
    const provider = await harness.provider.connection();
    await provider.waitForType("session.update", 2);
    provider.sendAudio("item_bye", speechUlaw("Goodbye, and thank you for calling."));
    await call.waitFor(() => call.ofEvent("mark").length > 0);
    modelCalls(provider, "resp_1", [functionCallItem("call_end", "end_call", '{"reason":"caller said bye"}')]);

    // Still playing: not hung up yet, though the bridge has handled the call to end_call and a frame since.
    await settleFromProvider(call, provider);
    await settle(call, provider);
    expect(call.socket.readyState).toBe(call.socket.OPEN);
    expect(outputsOf(provider)).toEqual([]);
    await call.waitFor(() => call.ofEvent("mark").length === call.ofEvent("media").length);
    for (const mark of call.ofEvent("mark")) call.ackMark(mark.mark.name);

    expect(await call.closed).toBe(1000);
    expect(await provider.closed).toBe(1000);
    expect(outputsOf(provider)).toEqual([{ callId: "call_end", output: { ok: true, message: "The call is ending." } }]);
    expect(provider.ofType("response.create")).toHaveLength(0);
    await eventually(async () => {
      const row = await harness!.database.db.selectFrom("calls").select("ended_at").executeTakeFirst();
      return Boolean(row?.ended_at);
    });
  });

  it("a tool still running when the caller hangs up is told to stop", async () => {
    const { call, provider } = await connectedCall();
    modelCalls(provider, "resp_1", [functionCallItem("call_slow", "slow_tool", "{}")]);
    await eventually(() => toolSignal !== undefined);
    expect(toolSignal?.aborted).toBe(false);
    call.stop();
    await provider.closed;
    expect(toolSignal?.aborted).toBe(true);
  });

  it("a tool that never returns gives a timeout error output after TOOL_TIMEOUT_MS, and the call goes on", async () => {
    const { provider } = await connectedCall({ TOOL_TIMEOUT_MS: "300" });
    modelCalls(provider, "resp_1", [functionCallItem("call_hang", "hanging_tool", "{}")]);
    await provider.waitForType("response.create");
    // The output says the timer fired.
    expect(outputsOf(provider)).toEqual([
      { callId: "call_hang", output: { error: "hanging_tool timed out after 300 ms" } },
    ]);
    modelCalls(provider, "resp_2", [functionCallItem("call_2", "lookup_order", '{"order":1}')]);
    await provider.waitForType("response.create", 2);
  });
});
