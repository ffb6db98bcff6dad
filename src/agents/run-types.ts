// What a run is told and what it tells: the sink its events go to, and how it can fail.

/** Receives a run as it happens; each method is called in the order of the official AG-UI rules. */
export interface RunSink {
  textStart(messageId: string): void;
  textDelta(messageId: string, delta: string): void;
  textEnd(messageId: string): void;
  toolCallStart(toolCallId: string, toolCallName: string, parentMessageId: string): void;
  toolCallArgs(toolCallId: string, delta: string): void;
  toolCallEnd(toolCallId: string): void;
  toolCallResult(messageId: string, toolCallId: string, content: string): void;
}

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
