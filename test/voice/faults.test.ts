import { createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { eventually } from "../helpers/eventually.ts";
import { listenOnLoopback } from "../helpers/loopback.ts";
import { CarrierCall, FRAME_BYTES } from "./doubles/carrier.ts";
import { type Harness, startHarness } from "./harness.ts";
import { speechUlaw } from "./speech.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function callEnded(target: Harness): Promise<boolean> {
  const rows = await target.database.db.selectFrom("calls").select("ended_at").execute();
  return rows.length > 0 && rows.every((row) => row.ended_at !== null);
}

async function unusedPort(): Promise<number> {
  const server = createServer();
  const port = await listenOnLoopback(server);
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("faults", () => {
  it("a provider that refuses the connection ends the call with a log line, and the key never reaches the log", async () => {
    harness = await startHarness({ refuseWith: 401 });
    const call = await CarrierCall.place(harness.server.url);
    expect(await call.closed).toBe(1011);
    expect(harness.logs.join("")).toContain("realtime provider refused the connection (HTTP 401)");
    expect(harness.logs.join("")).not.toContain("test-vendor-key");
    await eventually(() => callEnded(harness!));
  });

  it("an unreachable provider ends the call with a log line", async () => {
    const port = await unusedPort();
    harness = await startHarness({ env: { VENDOR_REALTIME_URL: `ws://127.0.0.1:${port}/v1/realtime` } });
    const call = await CarrierCall.place(harness.server.url);
    expect(await call.closed).toBe(1011);
    expect(harness.logs.join("")).toContain("realtime provider connection failed");
  });

  it("a provider closing mid-call hangs up the carrier with a log line", async () => {
    harness = await startHarness();
    const call = await CarrierCall.place(harness.server.url);
    const provider = await harness.provider.connection();
    call.sendAudio(speechUlaw("I have a question about my bill."));
    await provider.waitForType("input_audio_buffer.append", 5);
    provider.socket.close(1011, "server error");
    expect(await call.closed).toBe(1011);
    expect(harness.logs.join("")).toContain("realtime provider closed the connection (code 1011)");
    await eventually(() => callEnded(harness!));
  });

  it("a carrier that vanishes without a close frame closes the provider socket and ends the call record", async () => {
    harness = await startHarness();
    const call = await CarrierCall.place(harness.server.url);
    const provider = await harness.provider.connection();
    await provider.waitForType("session.update");
    call.vanish();
    expect(await provider.closed).toBe(1000);
    await eventually(() => callEnded(harness!));
    // The server carries on.
    const next = await CarrierCall.place(harness.server.url);
    await harness.provider.connection(2);
    next.stop();
    expect(await next.closed).toBe(1000);
  });

  it("a provider that never says session.created (dialect auto) ends the call with a log line", async () => {
    harness = await startHarness({ silent: true, timeouts: { sessionCreatedMs: 200 } });
    const call = await CarrierCall.place(harness.server.url);
    const provider = await harness.provider.connection();
    expect(await call.closed).toBe(1011);
    await provider.closed;
    expect(provider.ofType("session.update")).toHaveLength(0);
    expect(harness.logs.join("")).toContain("realtime provider sent no session.created");
  });

  it("a media stream that never sends start is closed without reaching the provider", async () => {
    harness = await startHarness({ timeouts: { startMs: 200 } });
    const socket = new WebSocket(`${harness.server.url.replace("http", "ws")}/media-stream`);
    const code = await new Promise<number>((resolve) => socket.on("close", resolve));
    expect(code).toBe(1008);
    expect(harness.provider.connections).toHaveLength(0);
    expect(harness.logs.join("")).toContain("no start frame");
  });

  it("the carrier's stop closes the provider socket", async () => {
    harness = await startHarness();
    const call = await CarrierCall.place(harness.server.url);
    const provider = await harness.provider.connection();
    await provider.waitForType("session.update");
    call.stop();
    expect(await provider.closed).toBe(1000);
    expect(await call.closed).toBe(1000);
  });

  it("malformed carrier frames are logged and skipped; every good frame still arrives in order", async () => {
    harness = await startHarness();
    const call = await CarrierCall.place(harness.server.url);
    const provider = await harness.provider.connection();
    const speech = speechUlaw("One two three four five.");
    const garbage: Array<string | Buffer> = [
      "not json at all",
      "[1,2,3]",
      '{"event":"media"}',
      '{"event":"media","media":{"payload":"\\"},{\\"type\\":\\"session.update"}}',
      '{"event":"media","media":{"payload":12}}',
      '{"event":"teleport"}',
      '{"event":"mark"}',
      Buffer.from([0, 1, 2, 3]),
    ];
    let frames = 0;
    for (let offset = 0; offset < speech.length; offset += FRAME_BYTES) {
      call.sendMediaFrame(speech.subarray(offset, offset + FRAME_BYTES).toString("base64"));
      const junk = garbage[frames++ % garbage.length]!;
      if (typeof junk === "string") call.sendRaw(junk);
      else call.socket.send(junk, { binary: true });
    }
    await provider.waitFor(() => provider.appendedAudio().length === speech.length);
    expect(Buffer.compare(provider.appendedAudio(), speech)).toBe(0);
    expect(provider.received.every((message) => message.type !== "session.update" || message.session)).toBe(true);
    expect(provider.ofType("session.update")).toHaveLength(2);
    expect(harness.logs.join("")).toContain("skipped a malformed carrier frame");
    // Logging is capped per call, not one line per bad frame.
    const malformedLines = harness.logs.filter((line) => line.includes("skipped a malformed carrier frame"));
    expect(malformedLines.length).toBeLessThanOrEqual(5);
    expect(call.socket.readyState).toBe(call.socket.OPEN);
  });

  it("media frames in any field order reach the provider; a frame with anything after it is skipped", async () => {
    harness = await startHarness();
    const call = await CarrierCall.place(harness.server.url);
    const provider = await harness.provider.connection();
    const chunk = (byte: number) => Buffer.alloc(FRAME_BYTES, byte);
    const base64 = (byte: number) => chunk(byte).toString("base64");
    call.sendMediaFrame(base64(1)); // Twilio's shape and order
    call.sendRaw(`{"event":"media","media":{"payload":"${base64(2)}"}}`); // the least Twilio's shape allows
    call.sendRaw(
      `{"streamSid":"${call.streamSid}","media":{"payload":"${base64(3)}","track":"inbound"},"event":"media"}`,
    );
    call.sendRaw(`{"event":"media","media":{"payload":"${base64(9)}"}}}`); // not JSON
    call.sendRaw(`{"event":"media","media":{"payload":"${base64(9).slice(1)}"}}`); // not whole base64 groups
    call.sendRaw(`{"event":"media","media":{"payload":"${base64(0xff).replaceAll("/", "\\/")}"}}`); // JSON escapes
    call.sendMediaFrame(base64(5));

    await provider.waitFor(() => provider.appendedAudio().length === 5 * FRAME_BYTES);
    expect(provider.appendedAudio()).toEqual(Buffer.concat([1, 2, 3, 0xff, 5].map(chunk)));
    const malformed = harness.logs.filter((line) => line.includes("skipped a malformed carrier frame"));
    expect(malformed.map((line) => JSON.parse(line).reason)).toEqual(["not JSON", "media without a base64 payload"]);
  });

  it("malformed provider messages are ignored and the call goes on", async () => {
    harness = await startHarness();
    const call = await CarrierCall.place(harness.server.url);
    const provider = await harness.provider.connection();
    await provider.waitForType("session.update");
    provider.socket.send("{{{ not json");
    provider.socket.send('{"type":"response.output_audio.delta","delta":42}');
    provider.socket.send("null");
    provider.sendAudio("item_ok", speechUlaw("Still here."), 800);
    await call.waitFor(() => call.ofEvent("media").length > 0);
    expect(call.ofEvent("media")[0]!.streamSid).toBe(call.streamSid);
  });

  it("audio deltas in another field order still play; a delta that is not base64 is dropped", async () => {
    harness = await startHarness();
    const call = await CarrierCall.place(harness.server.url);
    const provider = await harness.provider.connection();
    await provider.waitForType("session.update");
    const chunk = (byte: number) => Buffer.alloc(800, byte);
    provider.send({ delta: chunk(1).toString("base64"), type: "response.output_audio.delta", item_id: "item_a" });
    provider.send({ type: "response.output_audio.delta", item_id: "item_a", delta: '"},{"event":"stop' });
    provider.sendAudio("item_a", chunk(2));
    await call.waitFor(() => call.ofEvent("mark").length === 2);
    expect(call.receivedAudio()).toEqual(Buffer.concat([chunk(1), chunk(2)]));
    expect(call.ofEvent("media")).toHaveLength(2);
    expect(call.socket.readyState).toBe(call.socket.OPEN);
  });

  it("closing the server hangs up calls in progress and finishes their records", async () => {
    harness = await startHarness();
    const calls = await Promise.all([1, 2, 3].map(() => CarrierCall.place(harness!.server.url)));
    await harness.provider.connection(3);
    await harness.server.close();
    for (const call of calls) expect(await call.closed).toBe(1001);
    for (const connection of harness.provider.connections) await connection.closed;
    const rows = await harness.database.db.selectFrom("calls").select("ended_at").execute();
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(row.ended_at).not.toBeNull();
  });
});
