// Function calls to tools loaded from a real tools file, as `agent-platform call` finds it: TypeScript and Python.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { CarrierCall } from "./doubles/carrier.ts";
import type { ProviderConnection, WireMessage } from "./doubles/realtime-provider.ts";
import { type Harness, startHarness } from "./harness.ts";
import { speechUlaw } from "./speech.ts";

const TOOLS_TS = `
export const tools = [
  [
    {
      name: "lookup_order",
      description: "Finds an order by its number",
      parameters: { type: "object", properties: { order: { type: "integer" } }, required: ["order"] },
    },
    async ({ order }: { order: number }) => ({ order, status: "shipped" }),
  ],
  [
    { name: "warehouse", description: "Always fails", parameters: { type: "object", properties: {} } },
    () => {
      throw new Error("warehouse offline");
    },
  ],
];
`;

const TOOLS_PY = `
import asyncio

async def book_table(people, time="20:00"):
    await asyncio.sleep(0)
    return {"booked": True, "people": people, "time": time}

def kitchen():
    raise ValueError("kitchen closed")

tools = [
    ({"name": "book_table", "description": "Books a table",
      "parameters": {"type": "object", "properties": {"people": {"type": "integer"}, "time": {"type": "string"}},
                     "required": ["people"]}},
     book_table),
    ({"name": "kitchen", "description": "Always fails", "parameters": {"type": "object", "properties": {}}}, kitchen),
]
`;

const dir = mkdtempSync(join(tmpdir(), "voice-tools-"));
const tsFile = join(dir, "ts", "tools.ts");
const pyFile = join(dir, "py", "tools.py");
mkdirSync(join(dir, "ts"));
mkdirSync(join(dir, "py"));
writeFileSync(tsFile, TOOLS_TS);
writeFileSync(pyFile, TOOLS_PY);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

function call(callId: string, name: string, args: string): WireMessage {
  return { id: `item_${callId}`, type: "function_call", status: "completed", call_id: callId, name, arguments: args };
}

function outputs(provider: ProviderConnection): Record<string, unknown> {
  return Object.fromEntries(
    provider
      .ofType("conversation.item.create")
      .map((message) => [message.item.call_id, JSON.parse(message.item.output)]),
  );
}

async function startWith(toolsPath: string) {
  harness = await startHarness({ dialect: "ga", toolsPath });
  const carrier = await CarrierCall.place(harness.server.url, { autoAckMarks: true });
  const provider = await harness.provider.connection();
  const update = await provider.waitForType("session.update");
  return { carrier, provider, update };
}

describe("tools from a tools file", () => {
  it("a TypeScript tools file: its tools are offered, called, and a throwing one gives an error output", async () => {
    const { carrier, provider, update } = await startWith(tsFile);
    expect(update.session.tools.map((tool: WireMessage) => tool.name)).toEqual([
      "end_call",
      "lookup_order",
      "warehouse",
    ]);
    expect(update.session.tools[1]).toEqual({
      type: "function",
      name: "lookup_order",
      description: "Finds an order by its number",
      parameters: { type: "object", properties: { order: { type: "integer" } }, required: ["order"] },
    });
    const items = [call("c1", "lookup_order", '{"order":12}'), call("c2", "warehouse", "{}")];
    provider.send({ type: "response.done", response: { id: "resp_1", output: items } });
    await provider.waitForType("response.create");
    expect(outputs(provider)).toEqual({
      c1: { order: 12, status: "shipped" },
      c2: { error: "warehouse offline" },
    });
    // The call goes on.
    const speech = speechUlaw("Thanks.");
    carrier.sendAudio(speech);
    await provider.waitFor(() => provider.appendedAudio().length === speech.length);
  });

  it("a Python tools file: its async tool answers, a raising one gives an error output, and the call goes on", async () => {
    const { carrier, provider, update } = await startWith(pyFile);
    expect(update.session.tools.map((tool: WireMessage) => tool.name)).toEqual(["end_call", "book_table", "kitchen"]);
    const items = [call("p1", "book_table", '{"people":4}'), call("p2", "kitchen", "{}")];
    for (const item of items) provider.send({ type: "response.output_item.done", response_id: "resp_1", item });
    provider.send({ type: "response.done", response: { id: "resp_1", output: items } });
    await provider.waitForType("response.create", 1, 10_000);
    const answered = outputs(provider);
    expect(answered.p1).toEqual({ booked: true, people: 4, time: "20:00" });
    expect(answered.p2).toEqual({ error: expect.stringContaining("kitchen closed") });
    const speech = speechUlaw("See you at eight.");
    carrier.sendAudio(speech);
    await provider.waitFor(() => provider.appendedAudio().length === speech.length);
    expect(harness!.server.toolsFile).toBe(pyFile);
  });
});
