// The AG-UI events a runner sends for one task run, in the official dialect. Text, tool calls and CUSTOM go through
// the server's own OfficialEventSink (one shape for a run's events wherever it runs); reasoning, which in-process
// runs do not produce, is added here. Keeps the order the protocol asks for: a text message is closed before a tool
// call or a reasoning block starts.
import { randomUUID } from "node:crypto";
import { EventType, type ReasoningMessageStartEvent } from "@ag-ui/core";
import { type OfficialEvent, OfficialEventSink } from "../agents/official-events.ts";

export type { OfficialEvent };

export class RunEventWriter {
  private readonly sink: OfficialEventSink;
  private openText: string | undefined;
  private lastMessageId: string | undefined;
  private readonly openTools = new Set<string>();

  constructor(private readonly emit: (event: OfficialEvent) => void) {
    this.sink = new OfficialEventSink(emit);
  }

  /** Appends to the assistant message being written, opening one when none is. */
  text(delta: string): void {
    if (delta === "") return;
    if (this.openText === undefined) {
      this.openText = randomUUID();
      this.lastMessageId = this.openText;
      this.sink.textStart(this.openText);
    }
    this.sink.textDelta(this.openText, delta);
  }

  /** Ends the assistant message being written, if any: the next text starts a new one. */
  endText(): void {
    if (this.openText === undefined) return;
    this.sink.textEnd(this.openText);
    this.openText = undefined;
  }

  /** A whole thinking block, as the CLIs report them. */
  reasoning(text: string): void {
    if (text === "") return;
    this.endText();
    const messageId = randomUUID();
    this.emit({ type: EventType.REASONING_START, messageId });
    this.emit({
      type: EventType.REASONING_MESSAGE_START,
      messageId,
      role: "reasoning",
    } satisfies ReasoningMessageStartEvent);
    this.emit({ type: EventType.REASONING_MESSAGE_CONTENT, messageId, delta: text });
    this.emit({ type: EventType.REASONING_MESSAGE_END, messageId });
    this.emit({ type: EventType.REASONING_END, messageId });
  }

  /** A tool call with its arguments (JSON text); its end comes now, its result when the CLI reports it. */
  toolCall(toolCallId: string, toolCallName: string, args: unknown): void {
    if (this.openTools.has(toolCallId)) return;
    this.endText();
    this.openTools.add(toolCallId);
    if (this.lastMessageId === undefined) this.emit({ type: EventType.TOOL_CALL_START, toolCallId, toolCallName });
    else this.sink.toolCallStart(toolCallId, toolCallName, this.lastMessageId);
    const json = typeof args === "string" ? args : JSON.stringify(args ?? {});
    if (json !== "") this.sink.toolCallArgs(toolCallId, json);
    this.sink.toolCallEnd(toolCallId);
  }

  toolResult(toolCallId: string, content: string): void {
    this.endText();
    this.sink.toolCallResult(randomUUID(), toolCallId, content);
  }

  custom(name: string, value: unknown): void {
    this.endText();
    this.sink.custom({ name, value });
  }

  /** An event the CLI wrote itself (a `command` runtime), passed on as it is. */
  raw(event: OfficialEvent): void {
    this.endText();
    this.emit(event);
  }
}
