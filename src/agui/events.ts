// Event encoding for the agent-UI stream, in both namings: the official UPPER_SNAKE names (what @ag-ui/client
// expects) or the same names in lower case (the first clients' naming), same camelCase fields. Frames are written directly (`event:` + `data:`,
// LF only): @ag-ui/encoder writes no `event:` line, and a text delta must cost little more than its JSON.
import type {
  RunErrorEvent,
  RunFinishedEvent,
  RunStartedEvent,
  TextMessageEndEvent,
  TextMessageStartEvent,
  ToolCallArgsEvent,
  ToolCallEndEvent,
  ToolCallResultEvent,
  ToolCallStartEvent,
} from "@ag-ui/core";
import { OFFICIAL } from "../agents/official-events.ts";
import type { RunSink } from "../agents/run-types.ts";
import { sseFrame } from "../http/sse.ts";
import type { EventNaming } from "./request.ts";

type Fields<E> = Omit<E, "type">;

type Names = Record<keyof typeof OFFICIAL, string>;

const NAMES: Record<EventNaming, Names> = {
  "ag-ui": OFFICIAL,
  lowercase: Object.fromEntries(Object.entries(OFFICIAL).map(([key, name]) => [key, name.toLowerCase()])) as Names,
};

/** Writes a run as SSE frames; frames of one turn of the event loop go out in one write. */
export class SseRunWriter implements RunSink {
  private readonly names: Names;
  private buffer = "";
  private flushScheduled = false;
  private closed = false;
  /** The text_message_content frame up to the delta, for the current message. */
  private contentPrefix = "";
  private contentMessageId = "";

  constructor(
    dialect: EventNaming,
    private readonly sink: (chunk: string) => void,
  ) {
    this.names = NAMES[dialect];
  }

  /** Written at once, not on the next turn: under load a turn of the event loop can take a while. */
  runStarted(fields: Fields<RunStartedEvent>): void {
    this.event(this.names.runStarted, fields);
    this.flush();
  }

  runFinished(fields: Fields<RunFinishedEvent>): void {
    this.event(this.names.runFinished, fields);
  }

  runError(fields: Fields<RunErrorEvent>): void {
    this.event(this.names.runError, fields);
  }

  textStart(messageId: string): void {
    this.event(this.names.textStart, { messageId, role: "assistant" } satisfies Fields<TextMessageStartEvent>);
  }

  textDelta(messageId: string, delta: string): void {
    if (messageId !== this.contentMessageId) {
      const name = this.names.textContent;
      this.contentMessageId = messageId;
      this.contentPrefix = `event: ${name}\ndata: {"type":"${name}","messageId":${JSON.stringify(messageId)},"delta":`;
    }
    this.push(`${this.contentPrefix}${JSON.stringify(delta)}}\n\n`);
  }

  textEnd(messageId: string): void {
    this.event(this.names.textEnd, { messageId } satisfies Fields<TextMessageEndEvent>);
  }

  toolCallStart(toolCallId: string, toolCallName: string, parentMessageId: string): void {
    this.event(this.names.toolStart, {
      toolCallId,
      toolCallName,
      parentMessageId,
    } satisfies Fields<ToolCallStartEvent>);
  }

  toolCallArgs(toolCallId: string, delta: string): void {
    this.event(this.names.toolArgs, { toolCallId, delta } satisfies Fields<ToolCallArgsEvent>);
  }

  toolCallEnd(toolCallId: string): void {
    this.event(this.names.toolEnd, { toolCallId } satisfies Fields<ToolCallEndEvent>);
  }

  toolCallResult(messageId: string, toolCallId: string, content: string): void {
    this.event(this.names.toolResult, {
      messageId,
      toolCallId,
      content,
      role: "tool",
    } satisfies Fields<ToolCallResultEvent>);
  }

  /** Sends what is buffered; nothing is written afterwards. */
  close(): void {
    this.flush();
    this.closed = true;
  }

  private event(name: string, fields: object): void {
    this.push(sseFrame({ event: name, data: JSON.stringify({ type: name, ...fields }) }));
  }

  private push(frame: string): void {
    if (this.closed) return;
    this.buffer += frame;
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(this.flush);
    }
  }

  private readonly flush = (): void => {
    this.flushScheduled = false;
    if (this.buffer === "" || this.closed) return;
    const chunk = this.buffer;
    this.buffer = "";
    this.sink(chunk);
  };
}
