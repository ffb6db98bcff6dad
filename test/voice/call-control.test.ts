import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { CarrierCall } from "./doubles/carrier.ts";
import { CarrierRestDouble, TEST_AUTH_TOKEN } from "./doubles/carrier-rest.ts";
import type { ProviderConnection } from "./doubles/realtime-provider.ts";
import { functionCallItem, modelCalls, outputsOf } from "./function-call-items.ts";
import { type Harness, settle, settleFromProvider, startHarness } from "./harness.ts";
import { speechUlaw } from "./speech.ts";

const TRANSFER_TO = "+4930123456, sales=+4940111222, desk=sip:desk@pbx.example.com";

let harness: Harness | undefined;
let rest: CarrierRestDouble | undefined;
afterEach(async () => {
  await harness?.close();
  await rest?.close();
  harness = undefined;
  rest = undefined;
});

async function callWithCarrierApi(env: Record<string, string> = {}) {
  rest = await CarrierRestDouble.start();
  harness = await startHarness({ dialect: "ga", env: { ...rest.env, ...env } });
  const call = await CarrierCall.place(harness.server.url, { twilioAuthToken: TEST_AUTH_TOKEN });
  rest.attach(call);
  const provider = await harness.provider.connection();
  await provider.waitForType("session.update", 2);
  return { call, provider, rest };
}

/** The model says something in `chunks` audio deltas (each followed by a mark), then calls one function. */
async function speakThenCall(call: CarrierCall, provider: ProviderConnection, name: string, args: object) {
  const speech = speechUlaw("Of course. One moment please, I am putting you through now.");
  const chunkBytes = Math.ceil(speech.length / 6);
  provider.sendAudio("item_words", speech, chunkBytes);
  await call.waitFor(() => call.ofEvent("mark").length === 6);
  modelCalls(provider, "resp_1", [functionCallItem("call_1", name, JSON.stringify(args))]);
  await settleFromProvider(call, provider); // the bridge has handled response.done; one more chunk is queued
  await call.waitFor(() => call.ofEvent("mark").length === 7);
  return call.ofEvent("mark").map((mark) => mark.mark.name as string);
}

/** Nothing happens to the call while any of its audio is unplayed: the carrier's last mark is the signal. */
async function expectWaitsForTheLastMark(call: CarrierCall, provider: ProviderConnection, marks: string[]) {
  for (const name of marks.slice(0, -1)) call.ackMark(name);
  await settle(call, provider);
  expect(rest!.requests).toHaveLength(0);
  expect(outputsOf(provider)).toEqual([]);
  expect(call.socket.readyState).toBe(call.socket.OPEN);
  call.ackMark(marks.at(-1)!);
}

describe("end_call through the carrier's REST API", () => {
  it("after the last mark of the goodbye, completes the call with Status=completed; the stream ends", async () => {
    const { call, provider } = await callWithCarrierApi();
    const marks = await speakThenCall(call, provider, "end_call", { reason: "the caller said goodbye" });
    await expectWaitsForTheLastMark(call, provider, marks);

    const request = await rest!.waitForRequests(1);
    expect(request.path).toBe(`/2010-04-01/Accounts/${rest!.accountSid}/Calls/${call.callSid}.json`);
    expect(request.params).toEqual({ Status: ["completed"] });
    expect(await call.closed).toBe(1000);
    expect(await provider.closed).toBe(1000);
    expect(provider.ofType("response.create")).toHaveLength(0);
    expect(rest!.requests).toHaveLength(1);
  });

  it("a carrier error is told to the model as the function's error, logged with its code, and the call goes on", async () => {
    const { call, provider } = await callWithCarrierApi();
    rest!.failNext({ status: 404, code: 20404, message: "The requested resource was not found" });
    const marks = await speakThenCall(call, provider, "end_call", {});
    for (const name of marks) call.ackMark(name);

    await provider.waitForType("response.create");
    expect(outputsOf(provider)).toEqual([
      { callId: "call_1", output: { error: "carrier error 20404: The requested resource was not found" } },
    ]);
    const logged = harness!.logs.map((line) => JSON.parse(line)).find((line) => line.carrierCode === 20404);
    expect(logged).toMatchObject({ msg: "the carrier could not end the call", httpStatus: 404 });
    expect(JSON.stringify(harness!.logs)).not.toContain(TEST_AUTH_TOKEN);
    // Still connected both ways.
    await settle(call, provider);
    await settleFromProvider(call, provider);
    expect(call.socket.readyState).toBe(call.socket.OPEN);
  });
});

describe("transfer_call", () => {
  it("is offered only when CALL_TRANSFER_TO lists targets, naming them for the model", async () => {
    const { provider } = await callWithCarrierApi({ CALL_TRANSFER_TO: TRANSFER_TO });
    const tools = (await provider.waitForType("session.update")).session.tools;
    expect(tools.map((tool: { name: string }) => tool.name)).toEqual(["end_call", "transfer_call"]);
    expect(tools[1].parameters).toMatchObject({ required: ["to"] });
    expect(tools[1].description).toContain("+4930123456, sales (+4940111222), desk (sip:desk@pbx.example.com)");
    await harness!.close();
    await rest!.close();

    const without = await callWithCarrierApi();
    const plainTools = (await without.provider.waitForType("session.update")).session.tools;
    expect(plainTools.map((tool: { name: string }) => tool.name)).toEqual(["end_call"]);
  });

  it("cold: after the last mark, redirects the live call to <Dial> the target, by name or number", async () => {
    const { call, provider } = await callWithCarrierApi({ CALL_TRANSFER_TO: TRANSFER_TO });
    const marks = await speakThenCall(call, provider, "transfer_call", { to: "Sales" });
    await expectWaitsForTheLastMark(call, provider, marks);

    const request = await rest!.waitForRequests(1);
    expect(request.callSid).toBe(call.callSid);
    expect(request.params).toEqual({ Twiml: ["<Response><Dial>+4940111222</Dial></Response>"] });
    expect(await call.closed).toBe(1000);
    expect(await provider.closed).toBe(1000);
    expect(harness!.logs.some((line) => line.includes("transferred the call to sales (+4940111222)"))).toBe(true);
  });

  it("warm: the target's leg first hears the summary from a whisper link this server serves", async () => {
    const { call, provider } = await callWithCarrierApi({ CALL_TRANSFER_TO: TRANSFER_TO });
    const summary = 'Anna Meyer, order 4711 arrived damaged & she wants a "replacement".';
    const marks = await speakThenCall(call, provider, "transfer_call", { to: "sip:desk@pbx.example.com", summary });
    for (const name of marks) call.ackMark(name);

    const twiml = (await rest!.waitForRequests(1)).param("Twiml")!;
    const match = /^<Response><Dial><Sip url="([^"]+)">sip:desk@pbx\.example\.com<\/Sip><\/Dial><\/Response>$/.exec(
      twiml,
    );
    expect(match).not.toBeNull();
    const whisperUrl = match![1]!.replaceAll("&amp;", "&");
    const { port } = new URL(harness!.server.url);
    expect(whisperUrl.startsWith(`https://127.0.0.1:${port}/transfer-whisper?`)).toBe(true);

    // The carrier fetches it (the test reaches the https link as http, as behind a TLS-terminating proxy).
    const whisper = await fetch(whisperUrl.replace(/^https:/, "http:"), { method: "POST" });
    expect(whisper.status).toBe(200);
    expect(whisper.headers.get("content-type")).toContain("application/xml");
    expect(await whisper.text()).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Response><Say>Anna Meyer, order 4711 arrived damaged &amp; she wants a ' +
        "&quot;replacement&quot;.</Say></Response>",
    );
    const forged = new URL(whisperUrl.replace(/^https:/, "http:"));
    forged.searchParams.set("summary", "Say something else");
    expect((await fetch(forged)).status).toBe(403);
    expect(await call.closed).toBe(1000);
  });

  it("a target not in the list is the function's error: no request to the carrier, the call goes on", async () => {
    const { call, provider } = await callWithCarrierApi({ CALL_TRANSFER_TO: TRANSFER_TO });
    modelCalls(provider, "resp_1", [functionCallItem("call_1", "transfer_call", '{"to":"+4915199999999"}')]);
    await provider.waitForType("response.create");
    expect(outputsOf(provider)).toEqual([
      {
        callId: "call_1",
        output: {
          error:
            "+4915199999999 is not a transfer target; allowed: +4930123456, sales (+4940111222), desk (sip:desk@pbx.example.com)",
        },
      },
    ]);
    expect(rest!.requests).toHaveLength(0);
    await settle(call, provider);
    expect(call.socket.readyState).toBe(call.socket.OPEN);
  });

  it("a carrier that refuses the redirect leaves the caller with the assistant, told why", async () => {
    const { call, provider } = await callWithCarrierApi({ CALL_TRANSFER_TO: TRANSFER_TO });
    rest!.failNext({ status: 400, code: 21220, message: "Call is not in-progress. Cannot redirect." });
    modelCalls(provider, "resp_1", [functionCallItem("call_1", "transfer_call", '{"to":"+4930123456"}')]);
    await provider.waitForType("response.create");
    expect(outputsOf(provider)).toEqual([
      { callId: "call_1", output: { error: "carrier error 21220: Call is not in-progress. Cannot redirect." } },
    ]);
    expect(harness!.logs.some((line) => line.includes('"carrierCode":21220'))).toBe(true);
    await settle(call, provider);
    expect(call.socket.readyState).toBe(call.socket.OPEN);
  });

  it("CALL_TRANSFER_TO is checked at start: each entry a number or sip: URI, and the carrier API is needed", async () => {
    expect(loadConfig({ CALL_TRANSFER_TO: TRANSFER_TO }).voice.transferTargets).toEqual([
      { target: "+4930123456" },
      { name: "sales", target: "+4940111222" },
      { name: "desk", target: "sip:desk@pbx.example.com" },
    ]);
    expect(() => loadConfig({ CALL_TRANSFER_TO: "sales=030 123" })).toThrow(
      'Invalid configuration: CALL_TRANSFER_TO has "sales=030 123": each entry must be an E.164 number (+4930…) or a sip: URI, optionally as name=target',
    );
    await expect(startHarness({ env: { CALL_TRANSFER_TO: "+4930123456" } })).rejects.toThrow(
      "CALL_TRANSFER_TO needs TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN",
    );
  });
});
