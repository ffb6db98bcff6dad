// A call's recording through the platform API: written by a real call server (CALL_RECORDING) into the directory the
// platform server reads (CALL_RECORDINGS_DIR), on the same database.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspaceWithRoles, startTestApp, type TestApp } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { unknownId } from "../helpers/platform.ts";
import { CarrierCall } from "../voice/doubles/carrier.ts";
import { type Harness, startHarness } from "../voice/harness.ts";
import { speechUlaw } from "../voice/speech.ts";

describe.each(testDialects)("call recordings through the API (%s)", (dialect) => {
  let t: TestApp;
  let harness: Harness;
  let directory: string;
  let ws: string;
  let member: string;
  let outsider: string;
  let recordedCall: string;
  let unrecordedCall: string;
  let callerAudio: Buffer;

  /** A call with `audio` from the caller, hung up; resolves once its record is ended. */
  async function placeCall(harnessOfCall: Harness, audio: Buffer): Promise<string> {
    const connection = harnessOfCall.provider.connections.length + 1;
    const call = await CarrierCall.place(harnessOfCall.server.url);
    const provider = await harnessOfCall.provider.connection(connection);
    await provider.waitForType("session.update", 2);
    call.sendAudio(audio);
    await provider.waitFor(() => provider.appendedAudio().length === audio.length);
    call.stop();
    await call.closed;
    const row = await eventually(() =>
      harnessOfCall.database.db
        .selectFrom("calls")
        .select(["id", "ended_at"])
        .where("call_sid", "=", call.callSid)
        .executeTakeFirst(),
    );
    await eventually(async () => {
      const ended = await harnessOfCall.database.db
        .selectFrom("calls")
        .select("ended_at")
        .where("id", "=", row.id)
        .executeTakeFirst();
      return Boolean(ended?.ended_at);
    });
    return row.id;
  }

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), "call-recordings-api-"));
    t = await startTestApp(dialect, { env: { CALL_RECORDINGS_DIR: directory } });
    const roles = await createWorkspaceWithRoles(t.api);
    ws = roles.workspaceId;
    member = roles.member.token;
    outsider = roles.outsider.token;
    const shared = { sharedDatabaseUrl: t.databaseUrl, dialect: "ga" as const };
    callerAudio = speechUlaw("Please call me back tomorrow morning.");
    harness = await startHarness({
      ...shared,
      env: { CALL_WORKSPACE_ID: ws, CALL_RECORDING: "true", CALL_RECORDINGS_DIR: directory },
    });
    recordedCall = await placeCall(harness, callerAudio);
    await harness.close();
    harness = await startHarness({ ...shared, env: { CALL_WORKSPACE_ID: ws, CALL_RECORDINGS_DIR: directory } });
    unrecordedCall = await placeCall(harness, callerAudio);
  });

  afterAll(async () => {
    await harness?.close();
    await t?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it("a member downloads the recording as audio/wav, as long as the call", async () => {
    const response = await fetch(`${t.url}/api/v1/workspaces/${ws}/calls/${recordedCall}/recording`, {
      headers: { authorization: `Bearer ${member}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("audio/wav");
    const wav = Buffer.from(await response.arrayBuffer());
    expect(Number(response.headers.get("content-length"))).toBe(wav.length);
    expect(wav.toString("ascii", 0, 4)).toBe("RIFF");
    expect(wav.toString("ascii", 8, 12)).toBe("WAVE");
    expect(wav.readUInt32LE(24)).toBe(8000);
    expect(wav.readUInt32LE(40)).toBe(callerAudio.length * 2);
  });

  it("the call says whether it has a recording", async () => {
    const recorded = await t.api.get(`workspaces/${ws}/calls/${recordedCall}`, { token: member });
    expect(recorded.body).toMatchObject({ id: recordedCall, has_recording: true });
    const unrecorded = await t.api.get(`workspaces/${ws}/calls/${unrecordedCall}`, { token: member });
    expect(unrecorded.body).toMatchObject({ id: unrecordedCall, has_recording: false });
  });

  it("a call recorded without CALL_RECORDING, another workspace's or an unknown call is a 404", async () => {
    const noRecording = await t.api.get(`workspaces/${ws}/calls/${unrecordedCall}/recording`, { token: member });
    expect(noRecording.status).toBe(404);
    expect(noRecording.body).toEqual({ detail: "Recording not found" });
    for (const id of [unknownId(), "../../etc/passwd", "not-a-call"]) {
      const response = await t.api.get(`workspaces/${ws}/calls/${encodeURIComponent(id)}/recording`, {
        token: member,
      });
      expect(response.status, id).toBe(404);
      expect(response.body).toEqual({ detail: "Call not found" });
    }
  });

  it("a non-member gets 403 and nobody without a credential gets the audio", async () => {
    const path = `workspaces/${ws}/calls/${recordedCall}/recording`;
    expect((await t.api.get(path, { token: outsider })).status).toBe(403);
    expect((await t.api.get(path)).status).toBe(401);
  });
});
