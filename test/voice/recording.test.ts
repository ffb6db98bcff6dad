import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../helpers/eventually.ts";
import { CarrierCall } from "./doubles/carrier.ts";
import { type Harness, settle, startHarness } from "./harness.ts";
import { speechUlaw } from "./speech.ts";
import { ulawToSamples, wavInfo, wavSamples } from "./wav-file.ts";

let harness: Harness | undefined;
let directory: string | undefined;
afterEach(async () => {
  await harness?.close();
  if (directory) rmSync(directory, { recursive: true, force: true });
  harness = undefined;
  directory = undefined;
});

async function recordedCall(env: Record<string, string> = {}) {
  directory = mkdtempSync(join(tmpdir(), "call-recordings-"));
  harness = await startHarness({
    dialect: "ga",
    env: { CALL_RECORDING: "true", CALL_RECORDINGS_DIR: join(directory, "recordings"), ...env },
  });
  const call = await CarrierCall.place(harness.server.url);
  const provider = await harness.provider.connection();
  await provider.waitForType("session.update", 2);
  return { call, provider };
}

/** Hangs up and waits for the recording of the call: `<call id>.wav` in the recordings directory. */
async function hangUpAndRead(call: CarrierCall): Promise<string> {
  call.stop();
  await call.closed;
  const row = await eventually(() =>
    harness!.database.db.selectFrom("calls").select(["id", "ended_at"]).executeTakeFirst(),
  );
  const path = join(directory!, "recordings", `${row.id}.wav`);
  await eventually(() => existsSync(path), "the recording");
  return path;
}

const bytesOf = (samples: Int16Array) => Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);

describe("call recording (CALL_RECORDING)", () => {
  it("writes both sides as one 8 kHz 16-bit mono WAV: the caller's words, then the reply that played", async () => {
    const { call, provider } = await recordedCall();
    const words = speechUlaw("Hello, I would like to book a table.");
    call.sendAudio(words);
    await provider.waitFor(() => provider.appendedAudio().length === words.length);
    const reply = speechUlaw("Certainly. For how many people?");
    provider.sendAudio("item_reply", reply, 800);
    const chunks = Math.ceil(reply.length / 800);
    await call.waitFor(() => call.ofEvent("mark").length === chunks);
    for (const mark of call.ofEvent("mark")) call.ackMark(mark.mark.name);
    const path = await hangUpAndRead(call);

    expect(wavInfo(path)).toEqual({
      sampleRate: 8000,
      channels: 1,
      bitsPerSample: 16,
      encoding: "Signed Integer PCM",
      samples: words.length + reply.length,
    });
    const samples = wavSamples(path);
    expect(bytesOf(samples.subarray(0, words.length)).equals(bytesOf(ulawToSamples(words)))).toBe(true);
    expect(bytesOf(samples.subarray(words.length)).equals(bytesOf(ulawToSamples(reply)))).toBe(true);
    expect(readdirSync(join(directory!, "recordings"))).toEqual([`${path.split("/").at(-1)}`]);
  });

  it("keeps the reply only as far as the caller heard it: barge-in cuts it at the acknowledged marks", async () => {
    const { call, provider } = await recordedCall();
    const words = speechUlaw("Hello, I would like to book a table for two people tonight.").subarray(0, 8000);
    call.sendAudio(words);
    await provider.waitFor(() => provider.appendedAudio().length === words.length);
    const reply = speechUlaw("Let me tell you about all of our opening hours and every special offer this week.");
    provider.sendAudio("item_reply", reply, 480); // 60 ms chunks
    await call.waitFor(() => call.ofEvent("mark").length === Math.ceil(reply.length / 480));
    for (const mark of call.ofEvent("mark").slice(0, 5)) call.ackMark(mark.mark.name); // 300 ms played
    await settle(call, provider); // one more caller frame (silence)
    provider.send({ type: "input_audio_buffer.speech_started" });
    await provider.waitForType("conversation.item.truncate");
    const path = await hangUpAndRead(call);

    // 1 s of the caller, then 300 ms of the reply (the caller's silent frame under its start adds nothing).
    expect(wavInfo(path).samples).toBe(8000 + 2400);
    const samples = wavSamples(path);
    expect(bytesOf(samples.subarray(0, 8000)).equals(bytesOf(ulawToSamples(words)))).toBe(true);
    expect(bytesOf(samples.subarray(8000)).equals(bytesOf(ulawToSamples(reply.subarray(0, 2400))))).toBe(true);
  });

  it("overlapping speech is mixed: both sides summed sample by sample", async () => {
    const { call, provider } = await recordedCall();
    const reply = speechUlaw("Welcome to the restaurant.");
    provider.sendAudio("item_greeting", reply, 800);
    await call.waitFor(() => call.ofEvent("mark").length === Math.ceil(reply.length / 800));
    for (const mark of call.ofEvent("mark")) call.ackMark(mark.mark.name);
    const words = speechUlaw("Hi there.").subarray(0, 1600);
    call.sendAudio(words); // the caller talks while the greeting plays
    await provider.waitFor(() => provider.appendedAudio().length === words.length);
    const path = await hangUpAndRead(call);

    const samples = wavSamples(path);
    expect(samples.length).toBe(reply.length);
    const caller = ulawToSamples(words);
    const assistant = ulawToSamples(reply);
    const expected = assistant.map((sample, index) => Math.max(-32768, Math.min(32767, sample + (caller[index] ?? 0))));
    expect(bytesOf(samples).equals(bytesOf(expected))).toBe(true);
  });

  it("records nothing unless CALL_RECORDING is on", async () => {
    const { call } = await recordedCall({ CALL_RECORDING: "false" });
    call.sendAudio(speechUlaw("Hello?"));
    call.stop();
    await call.closed;
    await eventually(async () =>
      Boolean((await harness!.database.db.selectFrom("calls").select("ended_at").executeTakeFirst())?.ended_at),
    );
    expect(existsSync(join(directory!, "recordings"))).toBe(false);
  });
});
