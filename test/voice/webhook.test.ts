import { afterEach, describe, expect, it } from "vitest";
import { twilioSignature } from "../../src/voice/twilio-signature.ts";
import { CarrierCall, fetchWebhook, newSid, streamOf } from "./doubles/carrier.ts";
import { type Harness, startHarness } from "./harness.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const XML_SHAPE =
  /^<\?xml version="1\.0" encoding="UTF-8"\?><Response><Say><\/Say><Pause length="1"\/><Connect><Stream url="wss:\/\/([^"]+)\/media-stream"><Parameter name="token" value="[^"]+"\/><\/Stream><\/Connect><\/Response>$/;

describe("status page and carrier webhook", () => {
  it("GET /status is an HTML page saying the call server is running", async () => {
    harness = await startHarness();
    const response = await fetch(`${harness.server.url}/status`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await response.text()).toContain("The call server is running");
  });

  for (const method of ["GET", "POST"] as const) {
    it(`${method} / answers the XML instruction document pointing at wss://HOST/media-stream`, async () => {
      harness = await startHarness();
      const webhook = await fetchWebhook(harness.server.url, { method });
      expect(webhook.status).toBe(200);
      expect(webhook.contentType).toMatch(/^application\/xml/);
      const host = XML_SHAPE.exec(webhook.body)?.[1];
      expect(host).toBe(new URL(harness.server.url).host);
    });
  }

  it("uses X-Forwarded-Host (a tunnel or proxy in front) and PUBLIC_URL when set", async () => {
    harness = await startHarness();
    const forwarded = await fetch(`${harness.server.url}/`, { headers: { "x-forwarded-host": "calls.example.com" } });
    expect(streamOf(await forwarded.text()).url).toBe("wss://calls.example.com/media-stream");
    await harness.close();

    harness = await startHarness({ env: { PUBLIC_URL: "https://voice.example.org" } });
    const configured = await fetch(`${harness.server.url}/`, { headers: { "x-forwarded-host": "ignored.example" } });
    expect(streamOf(await configured.text()).url).toBe("wss://voice.example.org/media-stream");
  });

  it("refuses a Host header that is not a host name with 400", async () => {
    harness = await startHarness();
    const response = await fetch(`${harness.server.url}/`, { headers: { "x-forwarded-host": 'evil"/><Hangup/>' } });
    expect(response.status).toBe(400);
  });

  it("refuses a POST body that is not a form with 415, not 500", async () => {
    harness = await startHarness();
    const response = await fetch(`${harness.server.url}/`, {
      method: "POST",
      headers: { "content-type": "text/csv" },
      body: "a,b",
    });
    expect(response.status).toBe(415);
  });

  it("each call gets its own token, and a stream with a forged, reused-for-another-call or missing token is refused", async () => {
    harness = await startHarness();
    const first = streamOf((await fetchWebhook(harness.server.url, { callSid: "CAfirst" })).body);
    const second = streamOf((await fetchWebhook(harness.server.url, { callSid: "CAsecond" })).body);
    expect(first.parameters.token).not.toBe(second.parameters.token);

    const stolen = await CarrierCall.connect(first.url, "CAother", first.parameters);
    expect(await stolen.closed).toBe(1008);
    const forged = await CarrierCall.connect(first.url, "CAfirst", { token: `${first.parameters.token}x` });
    expect(await forged.closed).toBe(1008);
    const missing = await CarrierCall.connect(first.url, "CAfirst", {});
    expect(await missing.closed).toBe(1008);
    // None of them reached the provider.
    expect(harness.provider.connections).toHaveLength(0);
    expect(harness.logs.join("")).toContain("missing, invalid or already used stream token");

    const genuine = await CarrierCall.connect(first.url, "CAfirst", first.parameters);
    await harness.provider.connection();
    genuine.stop();
    expect(await genuine.closed).toBe(1000);
  });
});

describe("webhook signature check (TWILIO_AUTH_TOKEN)", () => {
  const authToken = "twilio-auth-token-for-tests";

  it("is off without TWILIO_AUTH_TOKEN: an unsigned webhook is answered", async () => {
    harness = await startHarness();
    expect((await fetchWebhook(harness.server.url, {})).status).toBe(200);
  });

  it("is on with TWILIO_AUTH_TOKEN: signed POST and GET pass, unsigned and wrongly signed get 403", async () => {
    harness = await startHarness({ env: { TWILIO_AUTH_TOKEN: authToken } });
    const { url } = harness.server;
    expect((await fetchWebhook(url, { method: "POST", twilioAuthToken: authToken })).status).toBe(200);
    expect((await fetchWebhook(url, { method: "GET", twilioAuthToken: authToken })).status).toBe(200);
    expect((await fetchWebhook(url, { method: "POST" })).status).toBe(403);
    expect((await fetchWebhook(url, { method: "POST", twilioAuthToken: "another-account" })).status).toBe(403);

    // A signed request whose body was changed on the way.
    const params = { CallSid: newSid("CA"), From: "+15550100" };
    const signature = twilioSignature(authToken, `${url}/`, { CallSid: [params.CallSid], From: [params.From] });
    const tampered = await fetch(`${url}/`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "x-twilio-signature": signature },
      body: new URLSearchParams({ ...params, From: "+15550666" }).toString(),
    });
    expect(tampered.status).toBe(403);
    expect(await tampered.text()).not.toContain("<Response>");
  });

  it("a signed call goes all the way through to the provider", async () => {
    harness = await startHarness({ env: { TWILIO_AUTH_TOKEN: authToken } });
    const call = await CarrierCall.place(harness.server.url, { twilioAuthToken: authToken });
    await harness.provider.connection();
    call.stop();
    expect(await call.closed).toBe(1000);
  });
});
