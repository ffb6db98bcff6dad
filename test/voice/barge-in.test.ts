import { afterEach, describe, expect, it } from "vitest";
import { CarrierCall } from "./doubles/carrier.ts";
import { type Harness, settle, settleFromProvider, startHarness } from "./harness.ts";
import { speechUlaw } from "./speech.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function callWithReply(dialect: "ga" | "beta") {
  harness = await startHarness({ dialect });
  const call = await CarrierCall.place(harness.server.url);
  const provider = await harness.provider.connection();
  await provider.waitForType("session.update", 2);
  return { call, provider };
}

function ackFirstMarks(call: CarrierCall, count: number): void {
  for (const mark of call.ofEvent("mark").slice(0, count)) call.ackMark(mark.mark.name);
}

describe("barge-in", () => {
  for (const dialect of ["ga", "beta"] as const) {
    it(`caller speech over the reply clears the carrier and truncates at the audio acknowledged as played (${dialect})`, async () => {
      const { call, provider } = await callWithReply(dialect);
      const reply = speechUlaw("Let me tell you about all of our opening hours and every special offer this week.");
      const chunkBytes = 480; // 60 ms per chunk
      provider.sendAudio("item_reply", reply, chunkBytes);
      const chunks = Math.ceil(reply.length / chunkBytes);
      await call.waitFor(() => call.ofEvent("mark").length === chunks);

      ackFirstMarks(call, 5); // 5 × 60 ms played
      await settle(call, provider);
      provider.send({ type: "input_audio_buffer.speech_started", audio_start_ms: 1000, item_id: "item_caller" });

      await call.waitFor(() => call.ofEvent("clear").length === 1);
      expect(call.ofEvent("clear")[0]).toEqual({ event: "clear", streamSid: call.streamSid });
      const truncate = await provider.waitForType("conversation.item.truncate");
      expect(truncate).toEqual({
        type: "conversation.item.truncate",
        item_id: "item_reply",
        content_index: 0,
        audio_end_ms: 300,
      });
    });
  }

  it("cuts the item being heard: earlier items fully played do not count", async () => {
    const { call, provider } = await callWithReply("ga");
    provider.sendAudio("item_one", Buffer.alloc(1600, 0x7f), 800); // 2 chunks, 200 ms
    provider.sendAudio("item_two", speechUlaw("And one more thing."), 400); // 50 ms chunks
    await call.waitFor(() => call.ofEvent("mark").length >= 5);
    ackFirstMarks(call, 2 + 3); // all of item_one, 150 ms of item_two
    await settle(call, provider);
    provider.send({ type: "input_audio_buffer.speech_started" });
    const truncate = await provider.waitForType("conversation.item.truncate");
    expect(truncate).toMatchObject({ item_id: "item_two", audio_end_ms: 150 });
  });

  it("speech before any of the reply was heard truncates at 0 ms", async () => {
    const { call, provider } = await callWithReply("ga");
    provider.sendAudio("item_reply", speechUlaw("Hello there."), 800);
    await call.waitFor(() => call.ofEvent("mark").length > 0);
    provider.send({ type: "input_audio_buffer.speech_started" });
    const truncate = await provider.waitForType("conversation.item.truncate");
    expect(truncate).toMatchObject({ item_id: "item_reply", audio_end_ms: 0 });
    await call.waitFor(() => call.ofEvent("clear").length === 1);
  });

  it("speech after the reply finished playing neither clears nor truncates", async () => {
    const { call, provider } = await callWithReply("ga");
    const reply = speechUlaw("Done.");
    provider.sendAudio("item_reply", reply, 800);
    const chunks = Math.ceil(reply.length / 800);
    await call.waitFor(() => call.ofEvent("mark").length === chunks);
    ackFirstMarks(call, chunks);
    await settle(call, provider);
    provider.send({ type: "input_audio_buffer.speech_started" });
    // Handled by now, and whatever it made the bridge send has arrived on both sides.
    await settleFromProvider(call, provider);
    await settle(call, provider);
    expect(call.ofEvent("clear")).toHaveLength(0);
    expect(provider.ofType("conversation.item.truncate")).toHaveLength(0);
  });

  it("marks of cleared audio echoed late by the carrier do not skew the next reply's truncate", async () => {
    const { call, provider } = await callWithReply("ga");
    provider.sendAudio("item_first", Buffer.alloc(2400, 0x7f), 800);
    await call.waitFor(() => call.ofEvent("mark").length === 3);
    provider.send({ type: "input_audio_buffer.speech_started" });
    await provider.waitForType("conversation.item.truncate");
    ackFirstMarks(call, 3); // Twilio returns the marks of the audio it cleared

    provider.sendAudio("item_second", Buffer.alloc(3200, 0x7f), 800);
    await call.waitFor(() => call.ofEvent("mark").length === 7);
    const secondMarks = call.ofEvent("mark").slice(3);
    call.ackMark(secondMarks[0]!.mark.name);
    await settle(call, provider);
    provider.send({ type: "input_audio_buffer.speech_started" });
    const truncate = await provider.waitForType("conversation.item.truncate", 2);
    expect(truncate).toMatchObject({ item_id: "item_second", audio_end_ms: 100 });
  });
});
