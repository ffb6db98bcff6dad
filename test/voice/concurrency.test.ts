import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../helpers/eventually.ts";
import { CarrierCall } from "./doubles/carrier.ts";
import type { ProviderConnection } from "./doubles/realtime-provider.ts";
import { type Harness, settle, startHarness } from "./harness.ts";
import { speechUlaw } from "./speech.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const CALLS = 20;

describe("concurrent calls", () => {
  it(`${CALLS} calls at once stay isolated: audio, marks, barge-in and transcripts go to their own call only`, async () => {
    harness = await startHarness({ dialect: "ga" });
    const server = harness.server.url;
    const calls = await Promise.all(
      Array.from({ length: CALLS }, (_, index) => CarrierCall.place(server, { callSid: `CAcall${index}` })),
    );
    await harness.provider.connection(CALLS);
    // Which provider connection serves which call: the first thing each call says is its own number.
    const speeches = calls.map((_, index) => speechUlaw(`This is caller number ${index}.`));
    for (const [index, call] of calls.entries()) call.sendAudio(speeches[index]!);
    const connections = harness.provider.connections;
    await eventually(
      () =>
        connections.reduce((sum, connection) => sum + connection.appendedAudio().length, 0) ===
        speeches.reduce((sum, speech) => sum + speech.length, 0),
      "every call's speech at the provider",
      10_000,
    );
    const connectionOf = new Map<CarrierCall, ProviderConnection>();
    for (const [index, call] of calls.entries()) {
      const matching = connections.filter((connection) => connection.appendedAudio().equals(speeches[index]!));
      expect(matching.length).toBeGreaterThanOrEqual(1);
      // Identical speech is impossible here (every call says something different), so exactly one connection.
      expect(matching).toHaveLength(1);
      connectionOf.set(call, matching[0]!);
    }
    expect(new Set(connectionOf.values()).size).toBe(CALLS);

    // Each provider connection answers with audio unique to its call.
    for (const [index, call] of calls.entries()) {
      connectionOf.get(call)!.sendAudio(`item_${index}`, Buffer.alloc(1600, index + 1), 800);
      connectionOf.get(call)!.send({
        type: "response.output_audio_transcript.done",
        item_id: `item_${index}`,
        transcript: `answer for call ${index}`,
      });
    }
    for (const [index, call] of calls.entries()) {
      await call.waitFor(() => call.ofEvent("mark").length === 2);
      expect(call.receivedAudio().equals(Buffer.alloc(1600, index + 1))).toBe(true);
      for (const message of call.received) expect(message.streamSid).toBe(call.streamSid);
    }

    // Barge-in on one call touches that call only.
    const interrupted = calls[7]!;
    interrupted.ackMark(interrupted.ofEvent("mark")[0]!.mark.name);
    await settle(interrupted, connectionOf.get(interrupted)!); // the ack is handled before the caller speaks
    connectionOf.get(interrupted)!.send({ type: "input_audio_buffer.speech_started" });
    const truncate = await connectionOf.get(interrupted)!.waitForType("conversation.item.truncate");
    expect(truncate).toMatchObject({ item_id: "item_7", audio_end_ms: 100 });
    await interrupted.waitFor(() => interrupted.ofEvent("clear").length === 1);
    for (const call of calls) if (call !== interrupted) expect(call.ofEvent("clear")).toHaveLength(0);
    for (const call of calls) {
      if (call !== interrupted) expect(connectionOf.get(call)!.ofType("conversation.item.truncate")).toHaveLength(0);
    }

    for (const call of calls) call.stop();
    await Promise.all(calls.map((call) => call.closed));
    const { db } = harness.database;
    await eventually(async () => {
      const open = await db.selectFrom("calls").select("id").where("ended_at", "is", null).execute();
      return open.length === 0;
    });
    const rows = await db
      .selectFrom("call_transcripts")
      .innerJoin("calls", "calls.id", "call_transcripts.call_id")
      .select(["calls.call_sid", "call_transcripts.text"])
      .execute();
    expect(rows).toHaveLength(CALLS);
    for (const row of rows) expect(row.text).toBe(`answer for call ${row.call_sid!.replace("CAcall", "")}`);
  });
});
