// Coalesced marks (voice-phone.md §5): the model's audio in 20 ms chunks gets a mark per 50 ms or more of audio, not
// one per chunk, and barge-in, end_call and a voicemail still go by the marks the carrier echoes.
import { afterEach, describe, expect, it } from "vitest";
import { CarrierCall } from "./doubles/carrier.ts";
import type { WireMessage } from "./doubles/realtime-provider.ts";
import { functionCallItem, modelCalls, outputsOf } from "./function-call-items.ts";
import { type Harness, settle, settleFromProvider, startHarness } from "./harness.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function callWithProvider() {
  harness = await startHarness({ dialect: "ga" });
  const call = await CarrierCall.place(harness.server.url);
  const provider = await harness.provider.connection();
  await provider.waitForType("session.update", 2);
  return { call, provider };
}

/** The audio bytes between one mark and the next, in order: what each mark covers. */
function spans(received: WireMessage[]): number[] {
  const covered: number[] = [];
  let bytes = 0;
  for (const message of received) {
    if (message.event === "media") bytes += Buffer.from(message.media.payload, "base64").length;
    if (message.event === "mark") {
      covered.push(bytes);
      bytes = 0;
    }
  }
  return covered;
}

const markNames = (call: CarrierCall): string[] => call.ofEvent("mark").map((mark) => mark.mark.name as string);

describe("coalesced marks", () => {
  it("20 ms chunks get a mark per 60 ms of audio; the last chunks get theirs though no chunk follows", async () => {
    const { call, provider } = await callWithProvider();
    const reply = Buffer.alloc(8000, 0x7f); // 1 s
    provider.sendAudio("item_reply", reply, 160);
    await call.waitFor(() => call.received.at(-1)?.event === "mark" && call.ofEvent("media").length === 50);

    expect(Buffer.compare(call.receivedAudio(), reply)).toBe(0);
    expect(spans(call.received)).toEqual([...Array.from({ length: 16 }, () => 480), 320]);
    expect(new Set(markNames(call)).size).toBe(17);
  });

  it("barge-in cuts where the last acknowledged mark says, and clears the rest", async () => {
    const { call, provider } = await callWithProvider();
    provider.sendAudio("item_reply", Buffer.alloc(8000, 0x7f), 160);
    await call.waitFor(() => call.ofEvent("mark").length === 17);
    for (const name of markNames(call).slice(0, 2)) call.ackMark(name); // 2 × 60 ms played
    await settle(call, provider);
    provider.send({ type: "input_audio_buffer.speech_started" });

    const truncate = await provider.waitForType("conversation.item.truncate");
    expect(truncate).toMatchObject({ item_id: "item_reply", audio_end_ms: 120 });
    await call.waitFor(() => call.ofEvent("clear").length === 1);
  });

  it("a mark echo in another shape than Twilio's counts the same", async () => {
    const { call, provider } = await callWithProvider();
    provider.sendAudio("item_reply", Buffer.alloc(8000, 0x7f), 160);
    await call.waitFor(() => call.ofEvent("mark").length === 17);
    const [first, second] = markNames(call);
    call.sendRaw({ mark: { name: first }, streamSid: call.streamSid, event: "mark" });
    call.sendRaw({ event: "mark", mark: { name: second, note: "played" } });
    await settle(call, provider);
    provider.send({ type: "input_audio_buffer.speech_started" });

    const truncate = await provider.waitForType("conversation.item.truncate");
    expect(truncate).toMatchObject({ item_id: "item_reply", audio_end_ms: 120 });
  });

  it("a new item closes the open span first: no mark covers audio of two items", async () => {
    const { call, provider } = await callWithProvider();
    provider.sendAudio("item_one", Buffer.alloc(320, 0x7f), 160); // 40 ms: less than a span
    provider.sendAudio("item_two", Buffer.alloc(480, 0x7f), 160);
    await call.waitFor(() => call.ofEvent("mark").length === 2);
    expect(call.received.map((message) => message.event)).toEqual([
      "media",
      "media",
      "mark",
      "media",
      "media",
      "media",
      "mark",
    ]);

    call.ackMark(markNames(call)[0]!); // all of item_one, none of item_two
    await settle(call, provider);
    provider.send({ type: "input_audio_buffer.speech_started" });
    const truncate = await provider.waitForType("conversation.item.truncate");
    expect(truncate).toMatchObject({ item_id: "item_two", audio_end_ms: 0 });
  });

  it("the provider's audio.done closes the open span at once", async () => {
    const { call, provider } = await callWithProvider();
    provider.sendAudio("item_reply", Buffer.alloc(160, 0x7f), 160);
    provider.send({ type: "response.output_audio.done", item_id: "item_reply", content_index: 0 });
    provider.sendAudio("item_reply", Buffer.alloc(160, 0x7f), 160);
    await call.waitFor(() => call.ofEvent("mark").length === 2);
    expect(call.received.map((message) => message.event)).toEqual(["media", "mark", "media", "mark"]);
  });

  it("end_call after 20 ms chunks waits for the mark of the last chunk, then hangs up", async () => {
    const { call, provider } = await callWithProvider();
    provider.sendAudio("item_bye", Buffer.alloc(1120, 0x7f), 160); // 140 ms: two spans and an open one
    await call.waitFor(() => call.ofEvent("media").length === 7);
    modelCalls(provider, "resp_1", [functionCallItem("call_end", "end_call", '{"reason":"done"}')]);
    await call.waitFor(() => call.ofEvent("mark").length === 3);
    expect(spans(call.received)).toEqual([480, 480, 160]);

    for (const name of markNames(call).slice(0, 2)) call.ackMark(name);
    await settleFromProvider(call, provider);
    await settle(call, provider);
    expect(call.socket.readyState).toBe(call.socket.OPEN);
    expect(outputsOf(provider)).toEqual([]);

    // The settling chunk is audio too: the call ends once it and the goodbye's last chunk have played.
    await call.waitFor(() => call.received.at(-1)?.event === "mark");
    for (const name of markNames(call).slice(2)) call.ackMark(name);
    expect(await call.closed).toBe(1000);
    expect(outputsOf(provider)).toEqual([{ callId: "call_end", output: { ok: true, message: "The call is ending." } }]);
  });
});
