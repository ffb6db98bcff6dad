// Outbound calls (voice-phone.md §4): POST /calls asks the carrier's REST API to place a call whose webhook is this
// server's (with a one-time token); the carrier's status callbacks and its answering-machine verdict (async AMD) keep
// the call's row up to date; GET /calls/{id} reads it. A machine that took the call hears the voicemail message —
// spoken by the model when the call's stream is up on this process, else with <Say> — and the call ends.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import { type Insertable, sql } from "kysely";
import { z } from "zod";
import type { Authenticator } from "../auth/authenticator.ts";
import { CALL_STATUSES, type CallStatus } from "../db/enums.ts";
import { type Db, isPostgres } from "../db/index.ts";
import type { CallsTable } from "../db/schema.ts";
import { isId, newId, now, timestampAt } from "../db/values.ts";
import { HttpError, notFound, registerErrorHandler } from "../http/errors.ts";
import { CarrierApiError, type CarrierRest } from "./carrier-rest.ts";
import type { StreamTokens } from "./stream-token.ts";
import { type FormParams, verifyTwilioSignature } from "./twilio-signature.ts";
import { escapeXml } from "./webhook.ts";

const E164 = /^\+[1-9]\d{1,14}$/;
const number = (what: string) =>
  z.string().regex(E164, { message: `${what} must be an E.164 number such as +4930123456` });
const words = (max: number) => z.string().trim().min(1).max(max);

export const placeCallBody = z.object({
  to: number("to"),
  from: number("from").optional(),
  instructions: words(20_000).optional(),
  greeting: words(2_000).optional(),
  voicemail_message: words(2_000).optional(),
});

const TERMINAL: ReadonlySet<string> = new Set(["completed", "busy", "no-answer", "failed", "canceled"]);
const MACHINE_VERDICTS: ReadonlySet<string> = new Set(["machine_end_beep", "machine_end_silence", "machine_end_other"]);
const WINDOW_MS = 60_000;

/** The subject of an outbound call's webhook token (the call sid is not known when the URL is made). */
export const outboundTokenSubject = (callId: string): string => `outbound:${callId}`;

/** A call in progress on this process, able to leave a message through the model and hang up. */
export interface VoicemailLine {
  leaveVoicemail(message: string): void;
}

export interface OutboundOptions {
  db: Db;
  authenticator: Authenticator;
  tokens: StreamTokens;
  /** CALL_WORKSPACE_ID: whose members may place and read calls. */
  workspaceId: string | undefined;
  carrier: CarrierRest | undefined;
  fromNumber: string | undefined;
  maxPerMinute: number;
  twilioAuthToken: string | undefined;
  /** This server's origin as the carrier reaches it. */
  originOf(request: FastifyRequest): URL | undefined;
  /** The live call of this id on this process, if its stream is here. */
  liveCall(callId: string): VoicemailLine | undefined;
}

export async function outboundRoutes(app: FastifyInstance, options: OutboundOptions): Promise<void> {
  const { db } = options;
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandler(app);
  const routes = app.withTypeProvider<ZodTypeProvider>();

  const member = async (request: FastifyRequest): Promise<string> => {
    if (!options.workspaceId) throw new HttpError(404, "Outbound calls need CALL_WORKSPACE_ID on the call server");
    await options.authenticator.requireInWorkspace(request.headers, options.workspaceId);
    return options.workspaceId;
  };

  routes.post("/calls", { schema: { body: placeCallBody } }, async (request, reply) => {
    const workspaceId = await member(request);
    const carrier = options.carrier;
    if (!carrier) throw new HttpError(503, "Outbound calls need TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN");
    const from = request.body.from ?? options.fromNumber;
    if (!from) throw new HttpError(422, "No number to call from: give from, or set CALL_FROM_NUMBER");
    const origin = options.originOf(request);
    if (!origin) throw new HttpError(400, "Bad Host header");
    const id = newId();
    const { to, instructions, greeting, voicemail_message } = request.body;
    const row = {
      id,
      workspace_id: workspaceId,
      call_sid: null,
      stream_sid: null,
      direction: "outbound",
      status: "queued",
      to_number: to,
      from_number: from,
      instructions: instructions ?? null,
      greeting: greeting ?? null,
      voicemail_message: voicemail_message ?? null,
    } as const;
    const retryAfter = await recordPlacement(db, row, options.maxPerMinute);
    if (retryAfter !== undefined) {
      reply.header("retry-after", String(retryAfter));
      throw new HttpError(429, `At most ${options.maxPerMinute} outbound calls a minute: try again in ${retryAfter} s`);
    }
    const base = origin.href.replace(/\/$/, "");
    const webhook = new URL(`${base}/`);
    webhook.searchParams.set("call", id);
    webhook.searchParams.set("token", options.tokens.issue(outboundTokenSubject(id)));
    let callSid: string;
    try {
      ({ sid: callSid } = await carrier.createCall({
        To: to,
        From: from,
        Url: webhook.href,
        StatusCallback: `${base}/calls/${id}/status`,
        StatusCallbackEvent: ["initiated", "ringing", "answered", "completed"],
        MachineDetection: "DetectMessageEnd",
        AsyncAmd: "true",
        AsyncAmdStatusCallback: `${base}/calls/${id}/amd`,
      }));
    } catch (error) {
      if (!(error instanceof CarrierApiError)) throw error;
      request.log.warn({ carrierCode: error.code, httpStatus: error.httpStatus }, "the carrier did not place the call");
      await db.updateTable("calls").set({ status: "failed", ended_at: now() }).where("id", "=", id).execute();
      throw new HttpError(502, `The carrier did not place the call: ${error.forModel}`);
    }
    await db.updateTable("calls").set({ call_sid: callSid }).where("id", "=", id).execute();
    return reply.code(201).send({ id, call_sid: callSid, status: "queued" });
  });

  routes.get("/calls/:call_id", { schema: { params: z.object({ call_id: z.string() }) } }, async (request) => {
    const workspaceId = await member(request);
    return callView(db, workspaceId, request.params.call_id);
  });

  /** The carrier's callbacks: signed when TWILIO_AUTH_TOKEN is set, about a call this server placed. */
  const callback =
    (handle: (callId: string, form: FormParams, request: FastifyRequest) => Promise<void>) =>
    async (request: FastifyRequest<{ Params: { call_id: string } }>, reply: FastifyReply) => {
      const form = isForm(request.body) ? request.body : {};
      const origin = options.originOf(request);
      if (options.twilioAuthToken) {
        const signature = request.headers["x-twilio-signature"];
        const url = origin ? origin.href + request.url.slice(1) : "";
        if (!verifyTwilioSignature(options.twilioAuthToken, url, form, String(signature ?? "")) || !origin) {
          request.log.warn("carrier callback refused: missing or invalid X-Twilio-Signature");
          return reply.code(403).type("text/plain").send("Invalid X-Twilio-Signature");
        }
      }
      const { call_id: callId } = request.params;
      const row = isId(callId)
        ? await db
            .selectFrom("calls")
            .select("id")
            .where("id", "=", callId)
            .where("direction", "=", "outbound")
            .executeTakeFirst()
        : undefined;
      if (!row) return reply.code(404).type("text/plain").send("Unknown call");
      await handle(callId, form, request);
      return reply.code(204).send();
    };

  app.post(
    "/calls/:call_id/status",
    callback(async (callId, form) => {
      const status = form.CallStatus?.[0];
      if (!status || !(CALL_STATUSES as readonly string[]).includes(status)) return;
      const duration = Number(form.CallDuration?.[0]);
      const terminal = TERMINAL.has(status);
      await db
        .updateTable("calls")
        .set({
          status: status as CallStatus,
          ...(terminal ? { ended_at: now() } : {}),
          ...(terminal && Number.isInteger(duration) && duration >= 0 ? { duration_s: duration } : {}),
        })
        .where("id", "=", callId)
        .execute();
    }),
  );

  app.post(
    "/calls/:call_id/amd",
    callback(async (callId, form, request) => {
      const answeredBy = form.AnsweredBy?.[0];
      if (!answeredBy) return;
      await db
        .updateTable("calls")
        .set({ answered_by: answeredBy.slice(0, 64) })
        .where("id", "=", callId)
        .execute();
      if (!MACHINE_VERDICTS.has(answeredBy)) return; // human or unknown: the conversation goes on
      const call = await db
        .selectFrom("calls")
        .select(["call_sid", "voicemail_message"])
        .where("id", "=", callId)
        .executeTakeFirstOrThrow();
      const message = call.voicemail_message;
      const live = options.liveCall(callId);
      if (message && live) {
        live.leaveVoicemail(message);
        return;
      }
      if (!options.carrier || !call.call_sid) return;
      const carrier = options.carrier;
      const callSid = call.call_sid;
      try {
        if (message) await carrier.redirect(callSid, `<Response><Say>${escapeXml(message)}</Say><Hangup/></Response>`);
        else await carrier.hangUp(callSid);
      } catch (error) {
        if (!(error instanceof CarrierApiError)) throw error;
        request.log.warn(
          { carrierCode: error.code, httpStatus: error.httpStatus },
          "the carrier refused the voicemail",
        );
      }
    }),
  );
}

type NewOutboundCall = Omit<Insertable<CallsTable>, "started_at" | "ended_at">;

/**
 * Records the placement, unless the call workspace placed `maxPerMinute` calls in the last minute (every process
 * serving it counts: the rows are the count): then nothing is recorded, and the answer is the seconds until a
 * placement leaves the window. On PostgreSQL placers of one workspace take turns (a transaction-scoped advisory lock),
 * so two processes cannot both take the last place; SQLite runs one transaction at a time.
 */
async function recordPlacement(db: Db, call: NewOutboundCall, maxPerMinute: number): Promise<number | undefined> {
  const workspaceId = String(call.workspace_id);
  return db.transaction().execute(async (trx) => {
    if (isPostgres(trx)) {
      await sql`select pg_advisory_xact_lock(hashtextextended(${`outbound-calls:${workspaceId}`}, 0))`.execute(trx);
    }
    const nowMs = Date.now();
    // Read through calls_workspace_idx (workspace, started_at): only the last minute's rows.
    const recent = await trx
      .selectFrom("calls")
      .select((eb) => [eb.fn.countAll<number | string>().as("placed"), eb.fn.min("started_at").as("oldest")])
      .where("workspace_id", "=", workspaceId)
      .where("started_at", ">", timestampAt(nowMs - WINDOW_MS))
      .where("direction", "=", "outbound")
      .executeTakeFirstOrThrow();
    if (Number(recent.placed) >= maxPerMinute) {
      const oldestMs = Date.parse(`${String(recent.oldest).slice(0, 23)}Z`);
      return Math.max(1, Math.ceil((oldestMs + WINDOW_MS - nowMs) / 1000));
    }
    await trx
      .insertInto("calls")
      .values({ ...call, started_at: now(), ended_at: null })
      .execute();
    return undefined;
  });
}

/** An outbound or inbound call of the workspace as GET /calls/{id} shows it. */
async function callView(db: Db, workspaceId: string, callId: string) {
  const row = isId(callId)
    ? await db
        .selectFrom("calls")
        .select([
          "id",
          "call_sid",
          "direction",
          "status",
          "answered_by",
          "to_number",
          "from_number",
          "started_at",
          "ended_at",
          "duration_s",
        ])
        .where("id", "=", callId)
        .where("workspace_id", "=", workspaceId)
        .executeTakeFirst()
    : undefined;
  if (!row) throw notFound("Call");
  const { to_number, from_number, ...rest } = row;
  return {
    ...rest,
    status: row.status ?? (row.ended_at ? "completed" : "in-progress"),
    to: to_number,
    from: from_number,
  };
}

function isForm(body: unknown): body is FormParams {
  return typeof body === "object" && body !== null && !Array.isArray(body);
}
