// One model call of a run: the model's stream relayed to the run's sink as it arrives, with a watchdog that fails a
// model gone silent, and the text and tool calls it produced collected for the thread.
import {
  type ChatMessage,
  type ModelClient,
  ModelError,
  type ToolCallRecord,
  type ToolSpec,
  type Usage,
} from "./model.ts";
import { RunAbortedError, type RunSink } from "./run-types.ts";

interface TurnRequest {
  system: string;
  messages: ChatMessage[];
  tools: ToolSpec[];
  /** The id of the assistant message this turn writes. */
  messageId: string;
  sink: RunSink;
  signal: AbortSignal;
  /** A response that started and then sent nothing for this long fails the turn. */
  modelTimeoutMs: number;
}

interface TurnResult {
  text: string;
  toolCalls: ToolCallRecord[];
  usage?: Usage;
}

const WATCHDOG_TICKS = 4;
/**
 * A fast model's buffered stream is read entirely in microtasks, which would starve every other socket (new
 * requests wait for whole runs to finish). The loop yields to the event loop after this long without doing so.
 */
const YIELD_AFTER_MS = 0.25;
const YIELD_CHECK_EVERY = 16;
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** One model call, relayed to the sink as it streams; a silent model fails after `modelTimeoutMs`. */
export async function streamTurn(model: ModelClient, turn: TurnRequest): Promise<TurnResult> {
  const { system, messages, tools, messageId, sink, signal, modelTimeoutMs } = turn;
  if (signal.aborted) throw new RunAbortedError();
  const controller = new AbortController();
  const abortTurn = () => controller.abort();
  signal.addEventListener("abort", abortTurn, { once: true });
  let opened = false;
  let progress = 0;
  let seenProgress = -1;
  let silentTicks = 0;
  let timedOut = false;
  const watchdog = setInterval(
    () => {
      if (!opened) return; // until the response starts, the SDK's own timeout applies
      if (progress !== seenProgress) {
        seenProgress = progress;
        silentTicks = 0;
      } else if (++silentTicks >= WATCHDOG_TICKS) {
        timedOut = true;
        controller.abort();
      }
    },
    Math.max(1, Math.floor(modelTimeoutMs / WATCHDOG_TICKS)),
  );

  let text = "";
  let textOpen = false;
  const toolCalls: ToolCallRecord[] = [];
  let openCall: ToolCallRecord | undefined;
  let usage: Usage | undefined;
  let lastYield = performance.now();
  try {
    for await (const event of model.stream({ system, messages, tools, signal: controller.signal })) {
      if (++progress % YIELD_CHECK_EVERY === 0 && performance.now() - lastYield > YIELD_AFTER_MS) {
        await yieldToEventLoop();
        lastYield = performance.now();
      }
      switch (event.type) {
        case "open":
          opened = true;
          break;
        case "text":
          if (!textOpen) {
            sink.textStart(messageId);
            textOpen = true;
          }
          text += event.delta;
          sink.textDelta(messageId, event.delta);
          break;
        case "tool_start":
          if (textOpen) {
            sink.textEnd(messageId);
            textOpen = false;
          }
          if (openCall) sink.toolCallEnd(openCall.id);
          openCall = { id: event.id, name: event.name, arguments: "" };
          toolCalls.push(openCall);
          sink.toolCallStart(event.id, event.name, messageId);
          break;
        case "tool_args": {
          const call = openCall?.id === event.id ? openCall : toolCalls.find((each) => each.id === event.id);
          if (call) {
            call.arguments += event.delta;
            sink.toolCallArgs(call.id, event.delta);
          }
          break;
        }
        case "finish":
          usage = event.usage;
          break;
      }
    }
  } catch (error) {
    if (!timedOut && !signal.aborted) throw error;
  } finally {
    clearInterval(watchdog);
    signal.removeEventListener("abort", abortTurn);
  }
  // An aborted SDK stream may end quietly instead of throwing.
  if (signal.aborted) throw new RunAbortedError();
  if (timedOut) {
    throw new ModelError("model_timeout", `The model ${model.id} sent nothing for ${modelTimeoutMs} ms`);
  }
  if (textOpen) sink.textEnd(messageId);
  if (openCall) sink.toolCallEnd(openCall.id);
  return { text, toolCalls, usage };
}
