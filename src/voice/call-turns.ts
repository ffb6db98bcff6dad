// The model's turns on one call beyond its audio: the functions it calls (answered once its response is done, then a
// new response, or the call ends when end_call or transfer_call asked for it), key presses as the caller's turn, and
// the voicemail message left on an answering machine.
import type { FastifyBaseLogger } from "fastify";
import type { CallControl } from "./call-control.ts";
import type { CallRecord } from "./call-record.ts";
import type { CarrierRest } from "./carrier-rest.ts";
import type { FunctionCallRunner } from "./function-calls.ts";
import type { FunctionCall, ProviderClient } from "./provider-client.ts";

interface CallTurnsOptions {
  provider: ProviderClient;
  runner: FunctionCallRunner;
  control: CallControl;
  record: CallRecord;
  /** Unset: hanging up after a voicemail only closes the stream. */
  carrier: CarrierRest | undefined;
  callSid: string;
  /** Resolves once the model's audio sent so far has played. */
  untilPlayed(): Promise<void>;
  /** Cuts what the model is saying (as a barge-in would). */
  interrupt(): void;
  /** Ends the call from our side. */
  end(reason: string): void;
  isEnded(): boolean;
  log: FastifyBaseLogger;
}

export class CallTurns {
  /** An answering machine took the outbound call: the next finished response is the voicemail message. */
  private leavingVoicemail = false;

  constructor(private readonly options: CallTurnsOptions) {}

  /** A key press is the caller's turn: the model reads it and answers; the transcript notes it. */
  keyPressed(digit: string): void {
    this.options.record.addTranscript("caller", `[pressed ${digit}]`);
    this.options.provider.sendUserText(`The caller pressed ${digit}.`);
    this.options.provider.createResponse();
  }

  /** The model finished a response: answer the functions it called, or hang up once the voicemail is left. */
  responseDone(calls: FunctionCall[], status: string): void {
    if (this.leavingVoicemail && status !== "cancelled") void this.hangUpAfterVoicemail();
    else void this.answerFunctionCalls(calls);
  }

  /**
   * The outbound call reached an answering machine: whatever the model is saying is cut, it leaves the message, and
   * once that has played the call ends.
   */
  leaveVoicemail(message: string): void {
    if (this.leavingVoicemail) return;
    this.leavingVoicemail = true;
    this.options.log.info("an answering machine took the call: leaving the voicemail message");
    this.options.interrupt();
    this.options.provider.cancelResponse();
    this.options.provider.createResponse(
      `An answering machine took the call. Leave this message, word for word, then stop: ${JSON.stringify(message)}`,
    );
  }

  private async answerFunctionCalls(calls: FunctionCall[]): Promise<void> {
    if (calls.length === 0) return;
    const { runner, provider, control } = this.options;
    const outputs = await runner.finish(calls);
    if (this.options.isEnded()) return;
    for (const { callId, output } of outputs) provider.sendFunctionOutput(callId, output);
    const leaving = control.leaving;
    if (leaving) this.options.end(leaving);
    else provider.createResponse();
  }

  private async hangUpAfterVoicemail(): Promise<void> {
    await this.options.untilPlayed();
    if (this.options.isEnded()) return;
    const { carrier, callSid } = this.options;
    if (carrier && callSid) {
      await carrier.hangUp(callSid).catch((error: unknown) => {
        this.options.log.warn({ err: error }, "the carrier did not end the call after the voicemail");
      });
    }
    this.options.end("the voicemail message was left");
  }
}
