// The voice call log through the API: calls recorded by a real call server (CALL_WORKSPACE_ID) on the same database.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CallRecord } from "../../src/voice/call-record.ts";
import { testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { startWorkspaceFixture, unknownId, type WorkspaceFixture } from "../helpers/platform.ts";
import { CarrierCall } from "../voice/doubles/carrier.ts";
import { type Harness, startHarness } from "../voice/harness.ts";

/** Places a call on the harness, lets the provider say `lines` (caller and assistant in turn); hangs up if asked. */
async function recordCall(harness: Harness, lines: string[], { hangUp = true } = {}): Promise<string> {
  const connection = harness.provider.connections.length + 1;
  const call = await CarrierCall.place(harness.server.url);
  const provider = await harness.provider.connection(connection);
  await provider.waitForType("session.update", 2);
  for (const [index, transcript] of lines.entries()) {
    provider.send(
      index % 2 === 0
        ? { type: "conversation.item.input_audio_transcription.completed", item_id: `c${index}`, transcript }
        : { type: "response.output_audio_transcript.done", item_id: `a${index}`, transcript },
    );
  }
  const { db } = harness.database;
  const stored = async () => {
    const row = await db
      .selectFrom("calls")
      .select(["id", "ended_at"])
      .where("call_sid", "=", call.callSid)
      .executeTakeFirst();
    if (!row) return undefined;
    const count = await db.selectFrom("call_transcripts").select("id").where("call_id", "=", row.id).execute();
    return count.length === lines.length ? row : undefined;
  };
  await eventually(async () => (await stored()) !== undefined);
  if (hangUp) {
    call.stop();
    await call.closed;
    await eventually(async () => Boolean((await stored())?.ended_at));
  }
  return (await stored())!.id;
}

describe.each(testDialects)("the voice call log (%s)", (dialect) => {
  let f: WorkspaceFixture;
  let harness: Harness;
  let otherHarness: Harness;
  let firstCall: string;
  let ongoingCall: string;
  let otherCall: string;

  beforeAll(async () => {
    f = await startWorkspaceFixture(dialect);
    const shared = { sharedDatabaseUrl: f.t.databaseUrl, dialect: "ga" as const };
    harness = await startHarness({ ...shared, env: { CALL_WORKSPACE_ID: f.ws } });
    otherHarness = await startHarness({ ...shared, env: { CALL_WORKSPACE_ID: f.otherWs } });
    firstCall = await recordCall(harness, ["Hi, I'd like a table", "For how many people?", "<b>Two</b> & a dog"]);
    ongoingCall = await recordCall(harness, ["Hello?"], { hangUp: false });
    otherCall = await recordCall(otherHarness, ["Elsewhere"]);
    // A call of a server without CALL_WORKSPACE_ID belongs to no workspace.
    const unassigned = new CallRecord(harness.database.db, harness.server.log, "CAunassigned", "MZunassigned");
    unassigned.addTranscript("caller", "Nobody sees me");
    await unassigned.end();
  });

  afterAll(async () => {
    await harness?.close();
    await otherHarness?.close();
    await f?.t.close();
  });

  it("a member lists the workspace's calls newest first, paged, with their transcript counts", async () => {
    const { api } = f.t;
    const list = await api.get(`workspaces/${f.ws}/calls/`, { token: f.member.token });
    expect(list.status).toBe(200);
    expect(list.body.map((call: { id: string }) => call.id)).toEqual([ongoingCall, firstCall]);
    const [ongoing, first] = list.body;
    expect(ongoing).toEqual({
      id: ongoingCall,
      call_sid: expect.stringMatching(/^CA/),
      started_at: expect.any(String),
      ended_at: null,
      direction: "inbound",
      status: "in-progress",
      answered_by: null,
      duration_s: null,
      transcript_count: 1,
    });
    expect(first).toMatchObject({
      id: firstCall,
      transcript_count: 3,
      ended_at: expect.any(String),
      direction: "inbound",
      status: "completed",
      duration_s: expect.any(Number),
    });
    expect(first.started_at < ongoing.started_at).toBe(true);

    const secondPage = await api.get(`workspaces/${f.ws}/calls?limit=1&offset=1`, { token: f.member.token });
    expect(secondPage.body.map((call: { id: string }) => call.id)).toEqual([firstCall]);
    const otherList = await api.get(`workspaces/${f.otherWs}/calls/`, { token: f.outsider.token });
    expect(otherList.body.map((call: { id: string }) => call.id)).toEqual([otherCall]);
  });

  it("a member reads a call with both sides of its transcript in the order spoken", async () => {
    const call = await f.t.api.get(`workspaces/${f.ws}/calls/${firstCall}`, { token: f.member.token });
    expect(call.status).toBe(200);
    expect(call.body).toMatchObject({ id: firstCall, transcript_count: 3 });
    expect(
      call.body.transcript.map(({ seq, speaker, text }: { seq: number; speaker: string; text: string }) => ({
        seq,
        speaker,
        text,
      })),
    ).toEqual([
      { seq: 1, speaker: "caller", text: "Hi, I'd like a table" },
      { seq: 2, speaker: "assistant", text: "For how many people?" },
      { seq: 3, speaker: "caller", text: "<b>Two</b> & a dog" },
    ]);
  });

  it("another workspace's call, an unknown id and a malformed id are 404 'Call not found'", async () => {
    for (const id of [otherCall, unknownId(), "not-a-call", "x".repeat(300)]) {
      const response = await f.t.api.get(`workspaces/${f.ws}/calls/${id}`, { token: f.owner.token });
      expect(response.status, id).toBe(404);
      expect(response.body).toEqual({ detail: "Call not found" });
    }
  });

  it("a non-member gets 403 on the call log and on a call", async () => {
    for (const path of [`workspaces/${f.ws}/calls/`, `workspaces/${f.ws}/calls/${firstCall}`]) {
      const response = await f.t.api.get(path, { token: f.outsider.token });
      expect(response.status, path).toBe(403);
    }
  });

  it("a call server whose CALL_WORKSPACE_ID names no workspace does not start", async () => {
    const missing = unknownId();
    await expect(
      startHarness({ sharedDatabaseUrl: f.t.databaseUrl, env: { CALL_WORKSPACE_ID: missing } }),
    ).rejects.toThrow(`CALL_WORKSPACE_ID names no workspace in this database: ${missing}`);
  });
});
