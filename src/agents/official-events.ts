// A run's events as official AG-UI event objects (UPPER_SNAKE `type` + camelCase fields): what the task worker stores
// and the runner reports, and the names the agent-UI stream writes in its official naming.
import {
  type CustomEvent,
  EventType,
  type RunErrorEvent,
  type RunFinishedEvent,
  type RunStartedEvent,
  type TextMessageStartEvent,
} from "@ag-ui/core";
import type { RunSink } from "./run-types.ts";

type Fields<E> = Omit<E, "type">;

export const OFFICIAL = {
  runStarted: EventType.RUN_STARTED,
  runFinished: EventType.RUN_FINISHED,
  runError: EventType.RUN_ERROR,
  textStart: EventType.TEXT_MESSAGE_START,
  textContent: EventType.TEXT_MESSAGE_CONTENT,
  textEnd: EventType.TEXT_MESSAGE_END,
  toolStart: EventType.TOOL_CALL_START,
  toolArgs: EventType.TOOL_CALL_ARGS,
  toolEnd: EventType.TOOL_CALL_END,
  toolResult: EventType.TOOL_CALL_RESULT,
} as const;

/** An event of the official dialect as an object (`type` + camelCase fields), for sinks that keep events. */
export type OfficialEvent = { type: string } & Record<string, unknown>;

/**
 * A run told as official AG-UI event objects, one call of `emit` per event (the task worker stores them; the
 * /agui stream writes frames straight away with its own writer, same names and fields).
 */
export class OfficialEventSink implements RunSink {
  constructor(private readonly emit: (event: OfficialEvent) => void) {}

  runStarted(fields: Fields<RunStartedEvent>): void {
    this.emit({ type: OFFICIAL.runStarted, ...fields });
  }

  runFinished(fields: Fields<RunFinishedEvent>): void {
    this.emit({ type: OFFICIAL.runFinished, ...fields });
  }

  runError(fields: Fields<RunErrorEvent>): void {
    this.emit({ type: OFFICIAL.runError, ...fields });
  }

  custom(fields: Fields<CustomEvent>): void {
    this.emit({ type: EventType.CUSTOM, ...fields });
  }

  textStart(messageId: string): void {
    this.emit({ type: OFFICIAL.textStart, messageId, role: "assistant" } satisfies Fields<TextMessageStartEvent> & {
      type: string;
    });
  }

  textDelta(messageId: string, delta: string): void {
    this.emit({ type: OFFICIAL.textContent, messageId, delta });
  }

  textEnd(messageId: string): void {
    this.emit({ type: OFFICIAL.textEnd, messageId });
  }

  toolCallStart(toolCallId: string, toolCallName: string, parentMessageId: string): void {
    this.emit({ type: OFFICIAL.toolStart, toolCallId, toolCallName, parentMessageId });
  }

  toolCallArgs(toolCallId: string, delta: string): void {
    this.emit({ type: OFFICIAL.toolArgs, toolCallId, delta });
  }

  toolCallEnd(toolCallId: string): void {
    this.emit({ type: OFFICIAL.toolEnd, toolCallId });
  }

  toolCallResult(messageId: string, toolCallId: string, content: string): void {
    this.emit({ type: OFFICIAL.toolResult, messageId, toolCallId, content, role: "tool" });
  }
}
