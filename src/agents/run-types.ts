// What a run is told and what it tells: the sink its events go to, the gate its tool calls pass, and how it can fail.
import type { ToolCallRecord, Usage } from "./model.ts";

/** Receives a run as it happens; each method is called in the order of the official AG-UI rules. */
export interface RunSink {
  textStart(messageId: string): void;
  textDelta(messageId: string, delta: string): void;
  textEnd(messageId: string): void;
  toolCallStart(toolCallId: string, toolCallName: string, parentMessageId: string): void;
  toolCallArgs(toolCallId: string, delta: string): void;
  toolCallEnd(toolCallId: string): void;
  toolCallResult(messageId: string, toolCallId: string, content: string): void;
  /** What one model call used, once it is over (sinks that keep a run's totals). */
  usage?(usage: Usage): void;
}

/**
 * What happens to a tool call the model made: it runs, it is answered without running (e.g. a person said no), or
 * it is held: the run stops with the call unanswered in its stored thread, to be settled when the run resumes.
 */
export type ToolGateDecision = { action: "run" } | { action: "answer"; content: string } | { action: "hold" };

/** Asked before each tool call of a run (approvals); without a gate every call runs. */
export type ToolGate = (call: ToolCallRecord) => Promise<ToolGateDecision>;

export const SILENT_SINK: RunSink = {
  textStart() {},
  textDelta() {},
  textEnd() {},
  toolCallStart() {},
  toolCallArgs() {},
  toolCallEnd() {},
  toolCallResult() {},
};

/** A run that could not finish; `code` travels in run_error. */
export class RunError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "RunError";
  }
}

export class RunAbortedError extends Error {
  readonly code = "aborted";
  constructor() {
    super("The run was cancelled");
    this.name = "AbortError";
  }
}
