import { afterEach, describe, expect, it } from "vitest";
import type { Tool } from "../../src/tools/registry.ts";
import { testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { CarrierCall, FRAME_BYTES } from "./doubles/carrier.ts";
import { type Harness, type HarnessOptions, startHarness } from "./harness.ts";
import { speechUlaw } from "./speech.ts";

const weatherTool: Tool = {
  name: "get_weather",
  description: "Current weather in a city",
  inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  run: async ({ city }) => ({ city, forecast: "sunny" }),
};

const endCallDefinition = {
  type: "function",
  name: "end_call",
  description: "Hang up the phone call. Call it after saying goodbye, when the caller wants to end the call.",
  parameters: { type: "object", properties: { reason: { type: "string", description: "Why the call ends" } } },
};
const weatherDefinition = {
  type: "function",
  name: "get_weather",
  description: "Current weather in a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** Places a call on a fresh harness; returns the provider's side and the first session.update it received. */
async function firstSessionUpdate(options: HarnessOptions) {
  harness = await startHarness(options);
  await CarrierCall.place(harness.server.url);
  const provider = await harness.provider.connection();
  return { provider, update: await provider.waitForType("session.update") };
}

describe("media stream bridge", () => {
  it("carries the caller's real speech to the provider byte for byte, in order, as input_audio_buffer.append", async () => {
    harness = await startHarness({ dialect: "ga" });
    const speech = speechUlaw("Hello, I would like to book a table for two people tonight.");
    expect(speech.length).toBeGreaterThan(8000);
    const call = await CarrierCall.place(harness.server.url);
    const frames = call.sendAudio(speech);
    expect(frames).toBe(Math.ceil(speech.length / FRAME_BYTES));
    const provider = await harness.provider.connection();
    await provider.waitForType("input_audio_buffer.append", frames);

    const appends = provider.ofType("input_audio_buffer.append");
    expect(appends).toHaveLength(frames);
    expect(Buffer.compare(provider.appendedAudio(), speech)).toBe(0);
    // Each append is one carrier frame, untouched.
    expect(appends[0]!.audio).toBe(speech.subarray(0, FRAME_BYTES).toString("base64"));
    // Audio only after the session is configured, so the provider reads it as μ-law.
    const firstAppend = provider.received.findIndex((message) => message.type === "input_audio_buffer.append");
    const firstUpdate = provider.received.findIndex((message) => message.type === "session.update");
    expect(firstUpdate).toBeGreaterThanOrEqual(0);
    expect(firstUpdate).toBeLessThan(firstAppend);
    expect(provider.headers.authorization).toBe("Bearer test-vendor-key");
  });

  it("plays the provider's speech to the caller as media with the call's streamSid, each chunk followed by a mark", async () => {
    harness = await startHarness({ dialect: "ga" });
    const reply = speechUlaw("Your table for two is booked at eight.");
    const call = await CarrierCall.place(harness.server.url);
    const provider = await harness.provider.connection();
    await provider.waitForType("session.update");
    provider.sendAudio("item_reply", reply, 800);
    const chunks = Math.ceil(reply.length / 800);
    await call.waitFor(() => call.ofEvent("mark").length === chunks);

    const media = call.ofEvent("media");
    expect(media).toHaveLength(chunks);
    expect(Buffer.compare(call.receivedAudio(), reply)).toBe(0);
    for (const frame of [...media, ...call.ofEvent("mark")]) expect(frame.streamSid).toBe(call.streamSid);
    // media, mark, media, mark, ...
    expect(call.received.map((message) => message.event)).toEqual(
      Array.from({ length: chunks }, () => ["media", "mark"]).flat(),
    );
  });

  it("a beta provider gets the seed's session.update exactly, with the OpenAI-Beta header when configured for beta", async () => {
    const { provider, update } = await firstSessionUpdate({
      dialect: "beta",
      configuredDialect: "beta",
      tools: [weatherTool],
    });
    expect(update).toEqual({
      type: "session.update",
      session: {
        turn_detection: { type: "server_vad", threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 200 },
        input_audio_format: "g711_ulaw",
        output_audio_format: "g711_ulaw",
        voice: "alloy",
        tools: [endCallDefinition, weatherDefinition],
        tool_choice: "auto",
        modalities: ["text", "audio"],
        temperature: 0.8,
      },
    });
    expect(provider.headers["openai-beta"]).toBe("realtime=v1");
    // Then caller transcription, which the seed's configuration leaves out.
    const second = await provider.waitForType("session.update", 2);
    expect(second).toEqual({ type: "session.update", session: { input_audio_transcription: { model: "whisper-1" } } });
  });

  it("auto-detects a beta provider from its session.created and sends the beta shape without the beta header", async () => {
    const { provider, update } = await firstSessionUpdate({ dialect: "beta", configuredDialect: "auto" });
    expect(update.session.input_audio_format).toBe("g711_ulaw");
    expect(update.session.modalities).toEqual(["text", "audio"]);
    expect(update.session.type).toBeUndefined();
    expect(provider.headers["openai-beta"]).toBeUndefined();
  });

  it("auto-detects a GA provider and sends the GA equivalent of the seed's configuration", async () => {
    const { provider, update } = await firstSessionUpdate({
      dialect: "ga",
      configuredDialect: "auto",
      tools: [weatherTool],
    });
    expect(update).toEqual({
      type: "session.update",
      session: {
        type: "realtime",
        output_modalities: ["audio"],
        audio: {
          input: {
            format: { type: "audio/pcmu" },
            turn_detection: { type: "server_vad", threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 200 },
          },
          output: { format: { type: "audio/pcmu" }, voice: "alloy" },
        },
        tools: [endCallDefinition, weatherDefinition],
        tool_choice: "auto",
      },
    });
    const second = await provider.waitForType("session.update", 2);
    expect(second).toEqual({
      type: "session.update",
      session: { type: "realtime", audio: { input: { transcription: { model: "whisper-1" } } } },
    });
  });

  it("with VENDOR_REALTIME_DIALECT=ga the configuration goes out as soon as the socket opens", async () => {
    const { provider, update } = await firstSessionUpdate({ dialect: "ga", configuredDialect: "ga", silent: true });
    expect(update.session.type).toBe("realtime");
    expect(provider.headers["openai-beta"]).toBeUndefined();
  });

  for (const database of testDialects) {
    it(`stores both sides of the transcript per call, in order (${database})`, async () => {
      harness = await startHarness({ dialect: "ga", database });
      const call = await CarrierCall.place(harness.server.url);
      const provider = await harness.provider.connection();
      await provider.waitForType("session.update", 2);
      provider.send({
        type: "conversation.item.input_audio_transcription.completed",
        item_id: "i1",
        transcript: "Hi there",
      });
      provider.send({
        type: "response.output_audio_transcript.done",
        item_id: "i2",
        transcript: "Hello! How can I help?",
      });
      provider.send({
        type: "conversation.item.input_audio_transcription.completed",
        item_id: "i3",
        transcript: "Bye",
      });
      // beta event name, accepted as well
      provider.send({ type: "response.audio_transcript.done", item_id: "i4", transcript: "Goodbye!" });
      await eventually(async () => {
        const rows = await harness!.database.db.selectFrom("call_transcripts").select("id").execute();
        return rows.length === 4;
      });
      call.stop();
      await call.closed;
      const { db } = harness.database;
      await eventually(async () => {
        const row = await db.selectFrom("calls").select("ended_at").executeTakeFirst();
        return Boolean(row?.ended_at);
      });
      const callRow = await db.selectFrom("calls").selectAll().executeTakeFirstOrThrow();
      expect(callRow.call_sid).toBe(call.callSid);
      expect(callRow.stream_sid).toBe(call.streamSid);
      const lines = await db
        .selectFrom("call_transcripts")
        .select(["seq", "speaker", "text", "call_id"])
        .orderBy("seq")
        .execute();
      expect(lines.map(({ seq, speaker, text }) => ({ seq, speaker, text }))).toEqual([
        { seq: 1, speaker: "caller", text: "Hi there" },
        { seq: 2, speaker: "assistant", text: "Hello! How can I help?" },
        { seq: 3, speaker: "caller", text: "Bye" },
        { seq: 4, speaker: "assistant", text: "Goodbye!" },
      ]);
      for (const line of lines) expect(line.call_id).toBe(callRow.id);
    });
  }
});
