// Media-stream tokens work once, whichever call process the stream reaches: the webhook answered by one process and
// the stream opened on another (same PLATFORM_JWT_SECRET, same database) is accepted, a replay on any process refused.
import { afterEach, describe, expect, it } from "vitest";
import { testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { CarrierCall, fetchWebhook, newSid, streamOf } from "./doubles/carrier.ts";
import { type Harness, startHarness } from "./harness.ts";

const SHARED_SECRET = { PLATFORM_JWT_SECRET: "a-secret-every-call-process-shares-0123456789" };

const harnesses: Harness[] = [];
afterEach(async () => {
  // The second process first: the first one drops the database they share.
  for (const harness of harnesses.splice(0).reverse()) await harness.close();
});

async function start(options: Parameters<typeof startHarness>[0]): Promise<Harness> {
  const harness = await startHarness(options);
  harnesses.push(harness);
  return harness;
}

const streamUrlOf = (harness: Harness) => `${harness.server.url.replace(/^http/, "ws")}/media-stream`;

async function issueToken(harness: Harness, callSid: string): Promise<Record<string, string>> {
  return streamOf((await fetchWebhook(harness.server.url, { callSid })).body).parameters;
}

describe.each(testDialects)("media-stream tokens (%s)", (database) => {
  it("a token is used once: a second stream with the same token is refused, even after the first one ended", async () => {
    const harness = await start({ database, env: SHARED_SECRET });
    const callSid = newSid("CA");
    const parameters = await issueToken(harness, callSid);

    const first = await CarrierCall.connect(streamUrlOf(harness), callSid, parameters);
    await harness.provider.connection();
    const replayWhileLive = await CarrierCall.connect(streamUrlOf(harness), callSid, parameters);
    expect(await replayWhileLive.closed).toBe(1008);
    first.stop();
    expect(await first.closed).toBe(1000);
    const replayAfter = await CarrierCall.connect(streamUrlOf(harness), callSid, parameters);
    expect(await replayAfter.closed).toBe(1008);

    expect(harness.provider.connections).toHaveLength(1);
    expect(harness.logs.join("")).toContain("already used stream token");
  });

  it("a token issued by one call process is accepted once by another on the same database and secret", async () => {
    const answering = await start({ database, env: SHARED_SECRET });
    const streaming = await start({ database, env: SHARED_SECRET, sharedDatabaseUrl: answering.databaseUrl });
    const callSid = newSid("CA");
    const parameters = await issueToken(answering, callSid);

    const call = await CarrierCall.connect(streamUrlOf(streaming), callSid, parameters);
    await streaming.provider.connection();
    // Replayed on either process, the used token is refused.
    for (const harness of [answering, streaming]) {
      const replay = await CarrierCall.connect(streamUrlOf(harness), callSid, parameters);
      expect(await replay.closed).toBe(1008);
    }
    call.stop();
    expect(await call.closed).toBe(1000);
    expect(answering.provider.connections).toHaveLength(0);
    expect(streaming.provider.connections).toHaveLength(1);
  });

  it("the same token sent to both processes at once opens exactly one stream", async () => {
    const answering = await start({ database, env: SHARED_SECRET });
    const streaming = await start({ database, env: SHARED_SECRET, sharedDatabaseUrl: answering.databaseUrl });
    const callSid = newSid("CA");
    const parameters = await issueToken(answering, callSid);
    const targets = [answering, streaming, answering, streaming];
    const calls = await Promise.all(
      targets.map((harness) => CarrierCall.connect(streamUrlOf(harness), callSid, parameters)),
    );
    const closedWith: Array<number | undefined> = calls.map(() => undefined);
    calls.forEach((call, index) => {
      void call.closed.then((code) => {
        closedWith[index] = code;
      });
    });
    await expect.poll(() => answering.provider.connections.length + streaming.provider.connections.length).toBe(1);
    await eventually(() => closedWith.filter((code) => code !== undefined).length >= 3, "three streams refused");
    expect(closedWith.filter((code) => code === 1008)).toHaveLength(3);
    // The one left open is bridged: a frame it sends now reaches the provider, so it was not refused before.
    const open = calls[closedWith.indexOf(undefined)]!;
    const [provider] = [...answering.provider.connections, ...streaming.provider.connections];
    open.sendMediaFrame(Buffer.alloc(160, 0xff).toString("base64"));
    await provider!.waitForType("input_audio_buffer.append");
    expect(closedWith.filter((code) => code === undefined)).toHaveLength(1);
    for (const call of calls) call.stop();
  });

  it("a process with another secret refuses the token; without a secret of its own a process trusts only itself", async () => {
    const answering = await start({ database, env: SHARED_SECRET });
    const stranger = await start({
      database,
      env: { PLATFORM_JWT_SECRET: "another-secret-of-another-deployment-0123456789" },
      sharedDatabaseUrl: answering.databaseUrl,
    });
    const callSid = newSid("CA");
    const refused = await CarrierCall.connect(streamUrlOf(stranger), callSid, await issueToken(answering, callSid));
    expect(await refused.closed).toBe(1008);

    // The development secret is public: processes left on it sign with a random key each, never with one from it.
    const devA = await start({ database });
    const devB = await start({ database, sharedDatabaseUrl: devA.databaseUrl });
    const devSid = newSid("CA");
    const devToken = await issueToken(devA, devSid);
    const elsewhere = await CarrierCall.connect(streamUrlOf(devB), devSid, devToken);
    expect(await elsewhere.closed).toBe(1008);
    const home = await CarrierCall.connect(streamUrlOf(devA), devSid, devToken);
    await devA.provider.connection();
    home.stop();
    expect(await home.closed).toBe(1000);
    expect(stranger.provider.connections).toHaveLength(0);
    expect(devB.provider.connections).toHaveLength(0);
  });

  it("used tokens are swept once expired", async () => {
    const harness = await start({ database, env: SHARED_SECRET });
    const { db } = harness.database;
    await db
      .insertInto("used_stream_tokens")
      .values({ token_id: "long-gone", expires_at: "2020-01-01T00:00:00.000000" })
      .execute();
    const callSid = newSid("CA");
    const call = await CarrierCall.connect(streamUrlOf(harness), callSid, await issueToken(harness, callSid));
    await harness.provider.connection();
    call.stop();
    await call.closed;
    const rows = await db.selectFrom("used_stream_tokens").select("token_id").execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.token_id).not.toBe("long-gone");
  });
});
