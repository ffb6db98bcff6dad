// Call control the model asks for: the built-in functions end_call and transfer_call. Each lets the model's current
// audio play to the end (the carrier's marks say when), then acts on the live call through the carrier's REST API.
// A carrier error is logged with its code and becomes the function's error: the call goes on.
import type { FastifyBaseLogger } from "fastify";
import type { TransferTarget } from "../config.ts";
import type { JsonSchemaObject, Tool, ToolContext } from "../tools/registry.ts";
import { CarrierApiError, type CarrierRest } from "./carrier-rest.ts";
import type { RealtimeToolDefinition } from "./session-config.ts";
import { describeTarget, findTransferTarget, transferTwiml } from "./transfer.ts";

export const END_CALL = "end_call";
export const TRANSFER_CALL = "transfer_call";

// Module constants: the tool invoker compiles each input schema once.
const endCallInput: JsonSchemaObject = {
  type: "object",
  properties: { reason: { type: "string", description: "Why the call ends" } },
};
const transferCallInput: JsonSchemaObject = {
  type: "object",
  properties: {
    to: { type: "string", description: "One of the allowed targets: its name, number or SIP address" },
    summary: {
      type: "string",
      description: "For a warm hand-off: what the person taking the call hears first (who calls and why)",
    },
  },
  required: ["to"],
};

export const endCallDefinition: RealtimeToolDefinition = {
  type: "function",
  name: END_CALL,
  description: "Hang up the phone call. Call it after saying goodbye, when the caller wants to end the call.",
  parameters: endCallInput,
};

export function transferCallDefinition(targets: TransferTarget[]): RealtimeToolDefinition {
  return {
    type: "function",
    name: TRANSFER_CALL,
    description:
      "Transfer the caller to a person. Tell the caller first; they are connected once you have finished speaking. " +
      `Allowed targets: ${targets.map(describeTarget).join(", ")}. ` +
      "Give a summary for a warm hand-off: the person hears it before the caller is joined.",
    parameters: transferCallInput,
  };
}

interface CallControlOptions {
  callSid: string;
  /** Unset: end_call closes the media stream, which ends the call too, and transfer_call is not offered. */
  carrier: CarrierRest | undefined;
  transferTargets: TransferTarget[];
  /** The link the target's leg fetches on a warm hand-off, served by this call server. */
  whisperUrl(summary: string): string;
  /** Resolves once the audio sent to the caller so far has played (or the call ended). */
  untilPlayed(): Promise<void>;
  log: FastifyBaseLogger;
}

export class CallControl {
  /** Why the call leaves this server, once end_call or transfer_call has done its work: the bridge then ends it. */
  leaving: string | undefined;
  /** The built-in functions of this call, by name. */
  readonly tools = new Map<string, Tool>();

  constructor(private readonly options: CallControlOptions) {
    this.tools.set(END_CALL, {
      name: END_CALL,
      description: endCallDefinition.description,
      inputSchema: endCallInput,
      run: (_args, context) => this.endCall(context),
    });
    if (options.carrier && options.transferTargets.length > 0) {
      this.tools.set(TRANSFER_CALL, {
        name: TRANSFER_CALL,
        description: transferCallDefinition(options.transferTargets).description,
        inputSchema: transferCallInput,
        run: (args, context) => this.transferCall(String(args.to), text(args.summary), context),
      });
    }
  }

  private async endCall(context: ToolContext): Promise<unknown> {
    const { carrier, callSid } = this.options;
    await this.untilPlayed(context);
    if (carrier && callSid) await this.carrierRequest("end the call", () => carrier.hangUp(callSid));
    this.leave("the assistant ended the call");
    return { ok: true, message: "The call is ending." };
  }

  private async transferCall(to: string, summary: string, context: ToolContext): Promise<unknown> {
    const { carrier, callSid, transferTargets } = this.options;
    const target = findTransferTarget(transferTargets, to);
    if (!target) {
      throw new Error(`${to} is not a transfer target; allowed: ${transferTargets.map(describeTarget).join(", ")}`);
    }
    if (!carrier || !callSid) throw new Error("this call cannot be transferred: the carrier gave no CallSid");
    await this.untilPlayed(context);
    const whisper = summary === "" ? undefined : this.options.whisperUrl(summary);
    await this.carrierRequest("transfer the call", () => carrier.redirect(callSid, transferTwiml(target, whisper)));
    // The carrier stops the media stream as it follows the new TwiML: this may be the last the call server hears of it.
    this.leave(`the assistant transferred the call to ${describeTarget(target)}`);
    return { ok: true, message: `The caller is being connected to ${describeTarget(target)}.` };
  }

  private leave(reason: string): void {
    this.leaving = reason;
    this.options.log.info(reason);
  }

  private async untilPlayed(context: ToolContext): Promise<void> {
    await this.options.untilPlayed();
    if (context.signal?.aborted) throw new Error("the call has already ended");
  }

  private async carrierRequest(what: string, request: () => Promise<unknown>): Promise<void> {
    try {
      await request();
    } catch (error) {
      if (!(error instanceof CarrierApiError)) throw error;
      this.options.log.warn(
        { carrierCode: error.code, httpStatus: error.httpStatus, carrierMessage: error.message },
        `the carrier could not ${what}`,
      );
      throw new Error(error.forModel);
    }
  }
}

const text = (value: unknown): string => (typeof value === "string" ? value.trim() : "");
