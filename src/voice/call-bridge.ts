// One phone call: accepts the carrier's stream (its token checked), then wires the carrier stream, the provider client,
// the audio path (call-audio.ts) and the model's turns (call-turns.ts) together, and ends the call.
// Each call owns all of its state, so concurrent calls cannot see each other.
import type { FastifyBaseLogger } from "fastify";
import type { WebSocket } from "ws";
import type { Tool } from "../tools/registry.ts";
import type { BridgeSettings } from "./bridge-settings.ts";
import { CallAudio } from "./call-audio.ts";
import { CallControl } from "./call-control.ts";
import { CallRecord } from "./call-record.ts";
import { CallRecording, recordingPath } from "./call-recording.ts";
import { CallTurns } from "./call-turns.ts";
import { CarrierStream, type StreamStart } from "./carrier-codec.ts";
import { FunctionCallRunner, realtimeDefinition } from "./function-calls.ts";
import type { PhoneAgentCall } from "./phone-agent.ts";
import { ProviderClient } from "./provider-client.ts";
import { boundParameters, CALLER_PARAMETER, OUTBOUND_CALL_PARAMETER, STREAM_TOKEN_PARAMETER } from "./stream-token.ts";

/** How much longer than the audio lasts end_call and transfer_call wait for its last mark before acting anyway. */
const PLAY_GRACE_MS = 2_000;
const MALFORMED_LOG_LIMIT = 5;
/** Caller audio kept while the stream token is checked (20 ms frames: 10 s). */
const MAX_EARLY_FRAMES = 500;

interface OutboundCall {
  id: string;
  instructions: string | null;
  greeting: string | null;
}

export class CallBridge {
  readonly finished: Promise<void>;
  private resolveFinished!: () => void;
  private readonly carrier: CarrierStream;
  private log: FastifyBaseLogger;
  /** Set once the call has begun (its token checked, its settings read); the caller's audio flows from then on. */
  private audio: CallAudio | undefined;
  private turns: CallTurns | undefined;
  private provider: ProviderClient | undefined;
  private record: CallRecord | undefined;
  private recording: CallRecording | undefined;
  private agentCall: PhoneAgentCall | undefined;
  /** What an outbound call was placed with (POST /calls), read when its stream starts. */
  private outbound: OutboundCall | undefined;
  private caller = "";
  private readonly abort = new AbortController();
  private readonly startTimer: NodeJS.Timeout;
  private malformedCount = 0;
  private started = false;
  private earlyAudio: string[] = [];
  private earlyDigits: string[] = [];
  private ended = false;

  constructor(
    socket: WebSocket,
    private readonly settings: BridgeSettings,
  ) {
    this.log = settings.log;
    this.finished = new Promise((resolve) => {
      this.resolveFinished = resolve;
    });
    this.carrier = new CarrierStream(socket, {
      start: (start) => this.start(start),
      media: (payload) => this.media(payload),
      mark: (name) => this.audio?.session.markAcknowledged(name),
      dtmf: (digit) => this.keyPressed(digit),
      stop: () => this.end("the carrier stopped the stream"),
      malformed: (reason) => this.malformed(reason),
      closed: (code) => this.end(`the carrier closed the stream (code ${code})`),
    });
    this.startTimer = setTimeout(() => {
      this.log.warn("media stream closed: no start frame");
      this.end("no start frame", 1008);
    }, settings.startTimeoutMs ?? 10_000);
  }

  /** The call's id (its row in `calls`), once its stream has been accepted. */
  get callId(): string | undefined {
    return this.record?.callId;
  }

  /**
   * The outbound call reached an answering machine: whatever the model is saying is cut, it leaves the message, and
   * once that has played the call ends.
   */
  leaveVoicemail(message: string): void {
    if (!this.ended) this.turns?.leaveVoicemail(message);
  }

  /** Hangs up from our side (server shutdown, end_call); safe to call more than once. */
  end(reason: string, carrierCloseCode = 1000): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.startTimer);
    this.abort.abort();
    this.audio?.stop();
    this.provider?.close();
    this.carrier.close(carrierCloseCode, carrierCloseCode === 1000 ? "call ended" : "call failed");
    if (this.audio) this.log.info({ reason }, "call ended");
    const recorded = this.record?.end().then(() => this.fileCall());
    void Promise.all([recorded, this.writeRecording()]).then(this.resolveFinished);
  }

  private start(start: StreamStart): void {
    if (this.started || this.ended) {
      this.malformed("a second start frame");
      return;
    }
    this.started = true;
    clearTimeout(this.startTimer);
    const token = start.customParameters[STREAM_TOKEN_PARAMETER];
    this.caller = start.customParameters[CALLER_PARAMETER] ?? "";
    this.settings.tokens.use(token, start.callSid, Date.now(), boundParameters(start.customParameters)).then(
      (valid) => {
        if (this.ended) return; // the carrier went away meanwhile
        if (valid) return this.prepare(start);
        this.log.warn("media stream refused: missing, invalid or already used stream token");
        this.end("unauthorized", 1008);
      },
      (error: unknown) => {
        this.log.error({ err: error }, "media stream refused: the stream token could not be checked");
        this.end("stream token check failed", 1011);
      },
    );
  }

  /** The caller's audio; what arrives while the stream token is being checked is kept for the provider. */
  private media(payload: string): void {
    if (this.audio) this.audio.fromCaller(payload);
    else if (this.started && this.earlyAudio.length < MAX_EARLY_FRAMES) this.earlyAudio.push(payload);
  }

  /**
   * An outbound call's settings, and with a phone agent the agent as it is now, are read first (the caller's audio
   * waits, kept, meanwhile).
   */
  private async prepare(start: StreamStart): Promise<void> {
    const outboundId = start.customParameters[OUTBOUND_CALL_PARAMETER];
    if (outboundId !== undefined) {
      const row = await this.settings.db
        .selectFrom("calls")
        .select(["id", "instructions", "greeting"])
        .where("id", "=", outboundId)
        .where("direction", "=", "outbound")
        .executeTakeFirst()
        .catch((error: unknown) => {
          this.log.error({ err: error }, "could not read the outbound call");
          return undefined;
        });
      if (!row) {
        this.end("the outbound call could not be read", 1011);
        return;
      }
      this.outbound = row;
    }
    if (this.settings.phoneAgent) {
      try {
        this.agentCall = await this.settings.phoneAgent.forCall();
      } catch (error) {
        this.log.error({ err: error }, "the call was refused: the phone agent could not be read");
        this.end("the phone agent could not be read", 1011);
        return;
      }
      if (this.ended) return;
    }
    this.begin(start);
  }

  private begin(start: StreamStart): void {
    const { settings, agentCall } = this;
    const record = new CallRecord(
      settings.db,
      settings.log,
      start.callSid,
      start.streamSid,
      settings.workspaceId ?? null,
      this.outbound?.id,
    );
    this.record = record;
    this.log = settings.log.child({ callId: record.callId, callSid: start.callSid, streamSid: start.streamSid });
    this.carrier.useStreamSid(start.streamSid);
    const control = new CallControl({
      callSid: start.callSid,
      carrier: settings.carrier,
      transferTargets: settings.transferTargets ?? [],
      whisperUrl: (summary) => {
        if (!settings.whisperLinks || !settings.origin)
          throw new Error("this server has no public address for a warm hand-off");
        return settings.whisperLinks.url(settings.origin, summary);
      },
      untilPlayed: () => this.untilPlayed(),
      log: this.log,
    });
    // The agent's tools, then the tools file's; a built-in function's name is never given to another tool.
    const offered = new Map<string, Tool>();
    for (const tool of [...(agentCall?.tools ?? []), ...settings.customTools]) {
      if (!offered.has(tool.name) && !control.tools.has(tool.name)) offered.set(tool.name, tool);
    }
    const context = { ...agentCall?.context, signal: this.abort.signal };
    const runner = new FunctionCallRunner(settings.tools, context, offered, control.tools);
    this.log.info("call started");
    const provider = new ProviderClient(
      {
        url: settings.providerUrl,
        apiKey: settings.apiKey,
        apiVersion: settings.apiVersion,
        tools: [...settings.builtInDefinitions, ...[...offered.values()].map(realtimeDefinition)],
        instructions: this.outbound?.instructions ?? agentCall?.instructions,
        sessionCreatedTimeoutMs: settings.sessionCreatedTimeoutMs,
      },
      {
        ready: (apiVersion) => this.log.info({ apiVersion }, "realtime session configured"),
        audio: (itemId, delta) => this.audio?.fromModel(itemId, delta),
        audioDone: () => this.audio?.closeSpan(),
        speechStarted: () => this.audio?.bargeIn(),
        callerTranscript: (text) => record.addTranscript("caller", text),
        assistantTranscript: (text) => record.addTranscript("assistant", text),
        functionCallDone: (call) => runner.start(call),
        responseDone: (calls, status) => this.turns?.responseDone(calls, status),
        providerError: (message) => this.log.warn({ providerMessage: message }, "realtime provider reported an error"),
        closed: (reason) => {
          this.log.error(`realtime provider ${reason}`);
          this.end(`realtime provider ${reason}`, 1011);
        },
      },
    );
    this.provider = provider;
    if (settings.recordingsDir) {
      this.recording = new CallRecording(recordingPath(settings.recordingsDir, record.callId));
    }
    this.audio = new CallAudio(this.carrier, provider, this.recording);
    this.turns = new CallTurns({
      provider,
      runner,
      control,
      record,
      carrier: settings.carrier,
      callSid: start.callSid,
      untilPlayed: () => this.untilPlayed(),
      interrupt: () => this.audio?.bargeIn(),
      end: (reason) => this.end(reason),
      isEnded: () => this.ended,
      log: this.log,
    });
    // On a call we placed, the model speaks first: the greeting asked for, else whatever it would say.
    if (this.outbound) {
      const { greeting } = this.outbound;
      provider.createResponse(
        greeting ? `Greet the person you called by saying, word for word: ${JSON.stringify(greeting)}` : undefined,
      );
    }
    for (const payload of this.earlyAudio) this.media(payload);
    this.earlyAudio = [];
    for (const digit of this.earlyDigits.splice(0)) this.keyPressed(digit);
  }

  /** A key press is the caller's turn; one pressed before the call has begun waits for it. */
  private keyPressed(digit: string): void {
    if (this.turns) this.turns.keyPressed(digit);
    else if (this.started && !this.ended) this.earlyDigits.push(digit);
  }

  /** Once the model's audio sent so far has played (end_call, transfer_call and a voicemail wait for it). */
  private untilPlayed(): Promise<void> {
    return this.audio?.untilPlayed(PLAY_GRACE_MS) ?? Promise.resolve();
  }

  /** After a phone agent's call: on the board (CALL_ISSUE); a failure is logged, never thrown. */
  private async fileCall(): Promise<void> {
    if (!this.agentCall || !this.record) return;
    try {
      await this.agentCall.fileCall(this.record.lines, this.caller, this.outbound !== undefined);
    } catch (error) {
      this.log.error({ err: error }, "could not file the call on the board");
    }
  }

  /** Once the call is over, off the audio path; a recording that cannot be written is logged, never thrown. */
  private async writeRecording(): Promise<void> {
    if (!this.recording) return;
    try {
      await this.recording.write();
    } catch (error) {
      this.log.error({ err: error }, "could not write the call recording");
    }
  }

  private malformed(reason: string): void {
    this.malformedCount++;
    if (this.malformedCount <= MALFORMED_LOG_LIMIT) this.log.warn({ reason }, "skipped a malformed carrier frame");
    else if (this.malformedCount === MALFORMED_LOG_LIMIT + 1) this.log.warn("further malformed frames are not logged");
  }
}
