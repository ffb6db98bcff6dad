import { afterEach, describe, expect, it } from "vitest";
import { testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { CarrierCall } from "./doubles/carrier.ts";
import { type Harness, settle, settleFromProvider, startHarness } from "./harness.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const userText = (text: string) => ({
  type: "conversation.item.create",
  item: { type: "message", role: "user", content: [{ type: "input_text", text }] },
});

describe("key presses (DTMF)", () => {
  for (const dialect of ["ga", "beta"] as const) {
    it(`each key reaches the model as the caller's message, then a response request (${dialect})`, async () => {
      harness = await startHarness({ dialect });
      const call = await CarrierCall.place(harness.server.url);
      const provider = await harness.provider.connection();
      await provider.waitForType("session.update", 2);

      call.pressKey("4");
      call.pressKey("#");
      await provider.waitForType("response.create", 2);
      const sent = provider.received.filter((message) =>
        ["conversation.item.create", "response.create"].includes(message.type),
      );
      expect(sent).toEqual([
        userText("The caller pressed 4."),
        { type: "response.create" },
        userText("The caller pressed #."),
        { type: "response.create" },
      ]);
    });
  }

  for (const database of testDialects) {
    it(`the transcript notes each key as [pressed <digit>] in the caller's turn order (${database})`, async () => {
      harness = await startHarness({ dialect: "ga", database });
      const call = await CarrierCall.place(harness.server.url);
      const provider = await harness.provider.connection();
      await provider.waitForType("session.update", 2);
      provider.send({
        type: "conversation.item.input_audio_transcription.completed",
        item_id: "item_1",
        content_index: 0,
        transcript: "I want to talk about my order.",
      });
      await settleFromProvider(call, provider);
      call.pressKey("1");
      await provider.waitForType("response.create");
      const lines = await eventually(async () => {
        const rows = await harness!.database.db
          .selectFrom("call_transcripts")
          .select(["speaker", "text"])
          .orderBy("seq")
          .execute();
        return rows.length === 2 && rows;
      });
      expect(lines).toEqual([
        { speaker: "caller", text: "I want to talk about my order." },
        { speaker: "caller", text: "[pressed 1]" },
      ]);
    });
  }

  it("a dtmf frame without a key is skipped with a log line and reaches no one", async () => {
    harness = await startHarness({ dialect: "ga" });
    const call = await CarrierCall.place(harness.server.url);
    const provider = await harness.provider.connection();
    await provider.waitForType("session.update", 2);
    call.sendRaw({ event: "dtmf", streamSid: call.streamSid, dtmf: { digit: "pizza" } });
    await settle(call, provider);
    expect(provider.ofType("conversation.item.create")).toHaveLength(0);
    expect(harness.logs.some((line) => line.includes("dtmf without a digit"))).toBe(true);
  });
});
