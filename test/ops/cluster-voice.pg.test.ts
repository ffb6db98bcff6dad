// Two `agent-platform call` processes on one PostgreSQL behind haproxy (deploy/haproxy.cfg's call frontend, round
// robin, no stickiness): the carrier's webhook is answered by one process and the media stream it points to is
// taken by the other, the call works both ways, and its stream token is refused when replayed to either process.
// Twilio's signature is checked behind the proxy too: against the Host it passes on.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, startCluster } from "../helpers/cluster.ts";
import { createTestDatabase, type TestDatabase, testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { needs } from "../helpers/system-tools.ts";
import { CarrierCall, fetchWebhook, newSid, streamOf } from "../voice/doubles/carrier.ts";
import { RealtimeProviderDouble } from "../voice/doubles/realtime-provider.ts";
import { speechUlaw } from "../voice/speech.ts";

const postgres = testDialects.filter((dialect) => dialect === "postgres");
const TWILIO_AUTH_TOKEN = "cluster-twilio-auth-token";

describe.each(postgres)("two call processes behind haproxy (%s)", needs("haproxy"), (dialect) => {
  let database: TestDatabase;
  let provider: RealtimeProviderDouble;
  let cluster: Cluster;

  beforeAll(async () => {
    provider = await RealtimeProviderDouble.start({ dialect: "ga" });
    database = await createTestDatabase(dialect);
    cluster = await startCluster({
      databaseUrl: database.url,
      serveCount: 0,
      callCount: 2,
      callEnv: { VENDOR_API_KEY: "test-vendor-key", VENDOR_REALTIME_URL: provider.url, TWILIO_AUTH_TOKEN },
    });
  }, 300_000);

  afterAll(async () => {
    await cluster?.close();
    await provider?.close();
    await database?.drop();
  });

  it("the webhook answered by one process, the stream taken by the other: audio both ways, the token used once", async () => {
    const callSid = newSid("CA");
    // Signed as Twilio signs the proxy's address: the process checks it against the Host the proxy passed on.
    const webhook = await fetchWebhook(cluster.proxy.callUrl, { callSid, twilioAuthToken: TWILIO_AUTH_TOKEN });
    expect(webhook.status).toBe(200);
    const answeredBy = webhook.headers.get("x-served-by");
    const stream = streamOf(webhook.body);
    // The carrier is sent back to the proxy, not to the process that answered.
    expect(stream.url).toBe(`${cluster.proxy.callUrl.replace(/^http:/, "wss:")}/media-stream`);

    const call = await CarrierCall.connect(stream.url, callSid, stream.parameters);
    const streamedBy = call.upgradeHeaders["x-served-by"];
    expect(new Set([answeredBy, streamedBy])).toEqual(new Set(["call1", "call2"]));

    // The caller's speech reaches the provider byte for byte, and the provider's speech reaches the caller.
    const speech = speechUlaw("Hello, is anyone there?");
    const frames = call.sendAudio(speech);
    const connection = await provider.connection(1, 15_000);
    await connection.waitForType("input_audio_buffer.append", frames, 15_000);
    expect(Buffer.compare(connection.appendedAudio(), speech)).toBe(0);
    const reply = speechUlaw("Yes, the other process took your call.");
    connection.sendAudio("item_reply", reply, 800);
    await call.waitFor(() => call.ofEvent("mark").length === Math.ceil(reply.length / 800), 15_000);
    expect(Buffer.compare(call.receivedAudio(), reply)).toBe(0);

    // The same token again, once on each process (round robin): refused by both while the call goes on.
    const replays = [
      await CarrierCall.connect(stream.url, callSid, stream.parameters),
      await CarrierCall.connect(stream.url, callSid, stream.parameters),
    ];
    expect(new Set(replays.map((replay) => replay.upgradeHeaders["x-served-by"]))).toEqual(new Set(["call1", "call2"]));
    for (const replay of replays) expect(await replay.closed).toBe(1008);
    expect(provider.connections).toHaveLength(1);

    // Without Twilio's signature, the webhook is refused whichever process gets it.
    for (let attempt = 0; attempt < 2; attempt++) {
      expect((await fetchWebhook(cluster.proxy.callUrl, { callSid: newSid("CA") })).status).toBe(403);
    }

    call.stop();
    expect(await call.closed).toBe(1000);
    const { Client } = (await import("pg")).default;
    const pg = new Client({ connectionString: database.url });
    await pg.connect();
    try {
      const ended = async () =>
        (await pg.query("select ended_at from calls where call_sid = $1", [callSid])).rows[0]?.ended_at != null;
      await eventually(ended, "the call to end", 10_000);
      expect((await pg.query("select count(*)::int as n from calls")).rows[0].n).toBe(1);
    } finally {
      await pg.end();
    }
  }, 60_000);
});
