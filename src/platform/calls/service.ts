// Reading the voice call log of a workspace: the calls a `call` server with CALL_WORKSPACE_ID recorded under it.
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { sql } from "kysely";
import type { Page } from "../../api/pagination.ts";
import type { CallDirection, CallStatus } from "../../db/enums.ts";
import type { Db } from "../../db/index.ts";
import type { CallTranscriptsTable } from "../../db/schema.ts";
import { isId } from "../../db/values.ts";
import { notFound } from "../../http/errors.ts";

interface CallSummary {
  id: string;
  call_sid: string | null;
  started_at: string;
  ended_at: string | null;
  direction: CallDirection;
  status: CallStatus;
  answered_by: string | null;
  duration_s: number | null;
  transcript_count: number;
}

interface Call extends CallSummary {
  transcript: Pick<CallTranscriptsTable, "seq" | "speaker" | "text" | "created_at">[];
  has_recording: boolean;
}

const summaries = (db: Db, workspaceId: string) =>
  db
    .selectFrom("calls")
    .select([
      "calls.id",
      "calls.call_sid",
      "calls.started_at",
      "calls.ended_at",
      "calls.direction",
      "calls.status",
      "calls.answered_by",
      "calls.duration_s",
    ])
    .select((eb) =>
      eb
        .selectFrom("call_transcripts")
        .select(sql<number>`count(*)`.as("lines"))
        .whereRef("call_transcripts.call_id", "=", "calls.id")
        .as("transcript_count"),
    )
    .where("calls.workspace_id", "=", workspaceId);

type SummaryRow = Omit<CallSummary, "transcript_count" | "status"> & {
  status: CallStatus | null;
  transcript_count: unknown;
};

// PostgreSQL's count(*) is a bigint, which its driver hands over as a string. Calls recorded before statuses were
// kept have none: theirs follows from whether they ended.
const toSummary = (row: SummaryRow): CallSummary => ({
  ...row,
  status: row.status ?? (row.ended_at ? "completed" : "in-progress"),
  transcript_count: Number(row.transcript_count ?? 0),
});

/** Newest first, ties broken by id so paging never skips or repeats. */
export async function listCalls(db: Db, workspaceId: string, page: Page): Promise<CallSummary[]> {
  const rows = await summaries(db, workspaceId)
    .orderBy("calls.started_at", "desc")
    .orderBy("calls.id", "desc")
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map(toSummary);
}

/** A call of this workspace with its transcript; an unknown id, or a call of another workspace, is a 404. */
export async function getCall(db: Db, recordingsDir: string, workspaceId: string, callId: string): Promise<Call> {
  const row = isId(callId)
    ? await summaries(db, workspaceId).where("calls.id", "=", callId).executeTakeFirst()
    : undefined;
  if (!row) throw notFound("Call");
  const transcript = await db
    .selectFrom("call_transcripts")
    .select(["seq", "speaker", "text", "created_at"])
    .where("call_id", "=", callId)
    .orderBy("seq")
    .execute();
  return { ...toSummary(row), transcript, has_recording: (await recordingFile(recordingsDir, row.id)) !== undefined };
}

const recordingFile = async (recordingsDir: string, callId: string) => {
  const path = join(recordingsDir, `${callId}.wav`);
  const file = await stat(path).catch(() => undefined);
  return file?.isFile() ? { path, bytes: file.size } : undefined;
};

/**
 * The recording of a call of this workspace, `<call id>.wav` in `recordingsDir` (the directory the call server
 * writes to); 404 for an unknown call, a call of another workspace, or a call with no recording (yet).
 */
export async function findRecording(
  db: Db,
  recordingsDir: string,
  workspaceId: string,
  callId: string,
): Promise<{ path: string; bytes: number }> {
  const call = isId(callId)
    ? await db
        .selectFrom("calls")
        .select("id")
        .where("id", "=", callId)
        .where("workspace_id", "=", workspaceId)
        .executeTakeFirst()
    : undefined;
  if (!call) throw notFound("Call");
  const recording = await recordingFile(recordingsDir, call.id);
  if (!recording) throw notFound("Recording");
  return recording;
}
