// Event encoding for the agent-UI stream, in both namings: the official UPPER_SNAKE names (what @ag-ui/client
// expects) or the same names in lower case (the first clients' naming), same camelCase fields. Frames are written directly (`event:` + `data:`,
// LF only): @ag-ui/encoder writes no `event:` line, and a text delta must cost little more than its JSON.
import {
  type CustomEvent,
  EventType,
  type RunErrorEvent,
  type RunFinishedEvent,
  type RunStartedEvent,
  type TextMessageEndEvent,
  type TextMessageStartEvent,
  type ToolCallArgsEvent,
  type ToolCallEndEvent,
  type ToolCallResultEvent,
  type ToolCallStartEvent,
} from "@ag-ui/core";
import type { RunSink } from "../agents/run-types.ts";
import type { EventNaming } from "./request.ts";

type Fields<E> = Omit<E, "type">;

const OFFICIAL = {
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

type Names = Record<keyof typeof OFFICIAL, string>;

/** One server-sent event frame; `id` numbers it for `Last-Event-ID` (stored run streams). */
export function sseFrame(name: string, json: string, id?: number): string {
  return `${id === undefined ? "" : `id: ${id}\n`}event: ${name}\ndata: ${json}\n\n`;
}

/** An event of the official dialect as an object (`type` + camelCase fields), for sinks that keep events. */
export type OfficialEvent = { type: string } & Record<string, unknown>;

/**
 * A run told as official AG-UI event objects, one call of `emit` per event (the task worker stores them; the
 * /agui stream writes frames straight away with SseRunWriter below). Same names and fields as SseRunWriter's.
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
  /** Set by every frame; the keep-alive timer only speaks when the stream has been quiet. */
  private wroteSinceTick = false;
  private keepAlive: NodeJS.Timeout | undefined;
  /** The text_message_content frame up to the delta, for the current message. */
  private contentPrefix = "";
  private contentMessageId = "";

  constructor(
    dialect: EventNaming,
    private readonly sink: (chunk: string) => void,
    keepAliveMs: number,
  ) {
    this.names = NAMES[dialect];
    this.keepAlive = setInterval(() => {
      if (!this.wroteSinceTick) this.push(": keep-alive\n\n");
      this.wroteSinceTick = false;
    }, keepAliveMs);
    this.keepAlive.unref();
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

  /** Sends what is buffered and stops the keep-alives; nothing is written afterwards. */
  close(): void {
    clearInterval(this.keepAlive);
    this.flush();
    this.closed = true;
  }

  private event(name: string, fields: object): void {
    this.push(sseFrame(name, JSON.stringify({ type: name, ...fields })));
  }

  private push(frame: string): void {
    if (this.closed) return;
    this.wroteSinceTick = true;
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
