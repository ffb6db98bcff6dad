// Outbound calls: POST /calls on the call server places a call through the carrier's REST API (its double); the
// test then plays Twilio: it fetches the call's webhook, opens the media stream, sends status and AMD callbacks.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { testDialects } from "../helpers/databases.ts";
import { startWorkspaceFixture, unknownId, type WorkspaceFixture } from "../helpers/platform.ts";
import { CarrierCall, carrierPost, streamOf } from "./doubles/carrier.ts";
import { CarrierRestDouble, TEST_AUTH_TOKEN } from "./doubles/carrier-rest.ts";
import { type Harness, startHarness } from "./harness.ts";

const FROM = "+4930555000";
const TO = "+4917012345678";

describe.each(testDialects)("outbound calls (%s)", (dialect) => {
  let f: WorkspaceFixture;
  let apiKey: string;
  let harness: Harness | undefined;
  let rest: CarrierRestDouble | undefined;

  beforeAll(async () => {
    f = await startWorkspaceFixture(dialect);
    const key = await f.t.api.post(`workspaces/${f.ws}/api-keys`, { name: "dialer" }, { token: f.owner.token });
    apiKey = key.body.key;
  });
  afterEach(async () => {
    await harness?.close();
    await rest?.close();
    harness = undefined;
    rest = undefined;
  });
  afterAll(async () => {
    await f?.t.close();
  });

  /** A call server on the fixture's database; the tests' placements share its workspace's minute, hence the cap. */
  async function callServer(env: Record<string, string> = {}) {
    rest ??= await CarrierRestDouble.start();
    const started = await startHarness({
      sharedDatabaseUrl: f.t.databaseUrl,
      database: dialect,
      dialect: "ga",
      env: {
        ...rest.env,
        CALL_WORKSPACE_ID: f.ws,
        CALL_FROM_NUMBER: FROM,
        CALL_MAX_OUTBOUND_PER_MINUTE: "1000",
        ...env,
      },
    });
    harness ??= started;
    return started;
  }

  /** A workspace of its own, whose owner places its calls: no other test's placements count against its cap. */
  async function dialerWorkspace(): Promise<{ ws: string; auth: Record<string, string> }> {
    const ws = (await f.t.api.post("workspaces/", { name: "Dialer" }, { token: f.owner.token })).body.id;
    return { ws, auth: { authorization: `Bearer ${f.owner.token}` } };
  }

  const postTo = (server: Harness, body: unknown, headers: Record<string, string>) =>
    fetch(`${server.server.url}/calls`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    }).then(async (response) => ({ status: response.status, headers: response.headers }));

  const post = (body: unknown, headers: Record<string, string> = { authorization: `Bearer ${f.member.token}` }) =>
    fetch(`${harness!.server.url}/calls`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    }).then(async (response) => ({
      status: response.status,
      headers: response.headers,
      body: (await response.json()) as any,
    }));

  const getCall = async (id: string) => {
    const response = await fetch(`${harness!.server.url}/calls/${id}`, { headers: { "x-api-key": apiKey } });
    return { status: response.status, body: (await response.json()) as any };
  };

  /** Places a call, then answers it as Twilio does: the webhook Url fetched (signed), the media stream opened. */
  async function placeAndAnswer(body: Record<string, unknown>) {
    const placed = await post(body);
    expect(placed.status).toBe(201);
    const request = rest!.requests.at(-1)!;
    const webhook = await carrierPost(
      request.param("Url")!,
      { CallSid: placed.body.call_sid, From: FROM, To: TO, Direction: "outbound-api" },
      TEST_AUTH_TOKEN,
    );
    expect(webhook.status).toBe(200);
    const stream = streamOf(webhook.body);
    const call = await CarrierCall.connect(stream.url, placed.body.call_sid, stream.parameters);
    rest!.attach(call);
    const provider = await harness!.provider.connection(harness!.provider.connections.length + 1);
    await provider.waitForType("session.update", 2);
    return { id: placed.body.id as string, callSid: placed.body.call_sid as string, request, call, provider };
  }

  it("POST /calls asks the carrier to place the call, with its webhook, status callbacks and async AMD", async () => {
    await callServer();
    const placed = await post({ to: TO });
    expect(placed.status).toBe(201);
    expect(placed.body).toEqual({ id: expect.any(String), call_sid: expect.stringMatching(/^CA/), status: "queued" });
    const request = await rest!.waitForRequests(1);
    const base = harness!.server.url;
    expect(request.path).toBe(`/2010-04-01/Accounts/${rest!.accountSid}/Calls.json`);
    expect(request.params).toEqual({
      To: [TO],
      From: [FROM],
      Url: [expect.stringMatching(new RegExp(`^${base}/\\?call=${placed.body.id}&token=[\\w.-]+$`))],
      StatusCallback: [`${base}/calls/${placed.body.id}/status`],
      StatusCallbackEvent: ["initiated", "ringing", "answered", "completed"],
      MachineDetection: ["DetectMessageEnd"],
      AsyncAmd: ["true"],
      AsyncAmdStatusCallback: [`${base}/calls/${placed.body.id}/amd`],
    });
    expect(await getCall(placed.body.id)).toEqual({
      status: 200,
      body: {
        id: placed.body.id,
        call_sid: placed.body.call_sid,
        direction: "outbound",
        status: "queued",
        answered_by: null,
        to: TO,
        from: FROM,
        started_at: expect.any(String),
        ended_at: null,
        duration_s: null,
      },
    });
  });

  it("401 without a credential, 403 for a non-member, 422 for a bad number; an API key of the workspace works", async () => {
    await callServer();
    expect((await post({ to: TO }, {})).status).toBe(401);
    expect((await post({ to: TO }, { authorization: `Bearer ${f.outsider.token}` })).status).toBe(403);
    const bad = await post({ to: "030 1234" });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ loc: ["body", "to"] });
    expect((await post({ to: TO }, { "x-api-key": apiKey })).status).toBe(201);
    expect(rest!.requests).toHaveLength(1);
    expect((await getCall(unknownId())).status).toBe(404);
  });

  it("answered: the stream speaks with the call's instructions and the model greets first; the Url works once", async () => {
    await callServer();
    const { request, provider, callSid } = await placeAndAnswer({
      to: TO,
      instructions: "You remind Anna of her appointment tomorrow at 9.",
      greeting: "Hello Anna, this is Acme Dental.",
    });
    expect(provider.ofType("session.update")[0]!.session.instructions).toBe(
      "You remind Anna of her appointment tomorrow at 9.",
    );
    const greeting = await provider.waitForType("response.create");
    expect(greeting.response.instructions).toContain('"Hello Anna, this is Acme Dental."');
    const replay = await carrierPost(request.param("Url")!, { CallSid: callSid, From: FROM, To: TO }, TEST_AUTH_TOKEN);
    expect(replay.status).toBe(403);
  });

  it("status callbacks (signed) keep the call's status, end and length", async () => {
    await callServer();
    const placed = await post({ to: TO });
    const statusUrl = `${harness!.server.url}/calls/${placed.body.id}/status`;
    const callback = (params: Record<string, string>, signed = true) =>
      carrierPost(statusUrl, { CallSid: placed.body.call_sid, ...params }, signed ? TEST_AUTH_TOKEN : undefined);
    expect((await callback({ CallStatus: "ringing" })).status).toBe(204);
    expect((await getCall(placed.body.id)).body.status).toBe("ringing");
    expect((await callback({ CallStatus: "completed", CallDuration: "42" }, false)).status).toBe(403);
    expect((await callback({ CallStatus: "completed", CallDuration: "42" })).status).toBe(204);
    expect((await getCall(placed.body.id)).body).toMatchObject({
      status: "completed",
      duration_s: 42,
      ended_at: expect.any(String),
    });
    // The workspace's call log shows the same.
    const logged = await f.t.api.get(`workspaces/${f.ws}/calls/${placed.body.id}`, { token: f.member.token });
    expect(logged.body).toMatchObject({
      direction: "outbound",
      status: "completed",
      duration_s: 42,
      answered_by: null,
    });
    expect((await carrierPost(`${harness!.server.url}/calls/${unknownId()}/status`, {}, TEST_AUTH_TOKEN)).status).toBe(
      404,
    );
  });

  it("an answering machine hears the voicemail message from the model, then the call ends", async () => {
    await callServer();
    const { id, callSid, call, provider } = await placeAndAnswer({
      to: TO,
      voicemail_message: "Your appointment is tomorrow at 9. Call us back on 030 555 000.",
    });
    const amd = await carrierPost(
      `${harness!.server.url}/calls/${id}/amd`,
      { CallSid: callSid, AnsweredBy: "machine_end_beep" },
      TEST_AUTH_TOKEN,
    );
    expect(amd.status).toBe(204);
    const voicemail = await provider.waitForType("response.create", 2);
    expect(voicemail.response.instructions).toContain(
      '"Your appointment is tomorrow at 9. Call us back on 030 555 000."',
    );
    expect(provider.ofType("response.cancel")).toHaveLength(1);

    provider.sendAudio("item_voicemail", Buffer.alloc(1600, 0x7f), 800);
    await call.waitFor(() => call.ofEvent("mark").length === 2);
    provider.send({ type: "response.done", response: { id: "resp_vm", status: "completed", output: [] } });
    call.ackMark(call.ofEvent("mark")[0]!.mark.name);
    expect(rest!.requests).toHaveLength(1); // only the placement: the message is still playing
    call.ackMark(call.ofEvent("mark")[1]!.mark.name);

    const hangUp = await rest!.waitForRequests(2);
    expect(hangUp).toMatchObject({ callSid, params: { Status: ["completed"] } });
    expect(await call.closed).toBe(1000);
    expect((await getCall(id)).body.answered_by).toBe("machine_end_beep");
  });

  it("a machine answering before the stream is up hears <Say>; a human goes on talking", async () => {
    await callServer();
    const placed = await post({ to: TO, voicemail_message: "Please call back." });
    const amdUrl = `${harness!.server.url}/calls/${placed.body.id}/amd`;
    await carrierPost(amdUrl, { CallSid: placed.body.call_sid, AnsweredBy: "machine_end_silence" }, TEST_AUTH_TOKEN);
    expect((await rest!.waitForRequests(2)).params).toEqual({
      Twiml: ["<Response><Say>Please call back.</Say><Hangup/></Response>"],
    });

    const { id, callSid } = await placeAndAnswer({ to: TO, voicemail_message: "Please call back." });
    const before = rest!.requests.length;
    await carrierPost(
      `${harness!.server.url}/calls/${id}/amd`,
      { CallSid: callSid, AnsweredBy: "human" },
      TEST_AUTH_TOKEN,
    );
    expect((await getCall(id)).body.answered_by).toBe("human");
    expect(rest!.requests).toHaveLength(before);
  });

  it("at most CALL_MAX_OUTBOUND_PER_MINUTE placements a minute: the next one is 429", async () => {
    const { ws, auth } = await dialerWorkspace();
    await callServer({ CALL_WORKSPACE_ID: ws, CALL_MAX_OUTBOUND_PER_MINUTE: "2" });
    expect((await post({ to: TO }, auth)).status).toBe(201);
    expect((await post({ to: TO }, auth)).status).toBe(201);
    const refused = await post({ to: TO }, auth);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(rest!.requests).toHaveLength(2);
  });

  it("the cap holds for the server, not each process: two processes on one database share it, even at once", async () => {
    const { ws, auth } = await dialerWorkspace();
    const env = { CALL_WORKSPACE_ID: ws, CALL_MAX_OUTBOUND_PER_MINUTE: "3" };
    const first = await callServer(env);
    const second = await callServer(env);
    try {
      expect((await postTo(first, { to: TO }, auth)).status).toBe(201);
      // Four at once, two through each process, for the two places left.
      const racing = await Promise.all(
        [first, second, first, second].map((server) => postTo(server, { to: TO }, auth)),
      );
      expect(racing.map((answer) => answer.status).sort()).toEqual([201, 201, 429, 429]);
      expect((await postTo(second, { to: TO }, auth)).status).toBe(429);
      expect(rest!.requests).toHaveLength(3);
    } finally {
      await second.close();
    }
  });

  it("a carrier that refuses to place the call is a 502 naming its error; the call is marked failed", async () => {
    await callServer();
    rest = rest!;
    rest.failNext({ status: 400, code: 21211, message: "The 'To' number is not a valid phone number." });
    const refused = await post({ to: TO });
    expect(refused.status).toBe(502);
    expect(refused.body.detail).toBe(
      "The carrier did not place the call: carrier error 21211: The 'To' number is not a valid phone number.",
    );
    const failed = await harness!.database.db
      .selectFrom("calls")
      .select(["direction", "ended_at"])
      .where("status", "=", "failed")
      .execute();
    expect(failed).toEqual([{ direction: "outbound", ended_at: expect.any(String) }]);
  });
});
