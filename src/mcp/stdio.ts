// The tool protocol over stdio (MCP's stdio transport): each line of the input is one JSON-RPC message, each answer
// one line of the output. Messages are handled concurrently, so a slow tool call does not hold up a ping; answers
// carry their ids. Nothing but answers is written to the output.
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import type { ToolContext } from "../tools/registry.ts";
import type { McpDispatcher } from "./dispatcher.ts";

interface StdioOptions {
  input: Readable;
  output: Writable;
  /** Who every message acts as: the whole stream belongs to one caller. */
  caller: ToolContext;
  /** Aborting stops at once (a signal to the process): running tools are told through their signal. */
  stop: AbortSignal;
}

/**
 * Serves until the input ends (then answers every message still running, so `printf … | agent-platform mcp`
 * gets its answers) or until `stop` fires (then returns without waiting).
 */
export async function serveStdio(dispatcher: McpDispatcher, options: StdioOptions): Promise<void> {
  const { input, output, stop } = options;
  const caller: ToolContext = { ...options.caller, signal: stop };
  const running = new Set<Promise<void>>();
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  const stopReading = () => lines.close();
  stop.addEventListener("abort", stopReading, { once: true });
  // The client has gone (its end of our output closed): nothing more can be answered.
  output.on("error", stopReading);

  for await (const line of lines) {
    if (line.trim() === "") continue;
    const handled = dispatcher.dispatchText(line, caller).then((outcome) => {
      if (outcome.response !== undefined && output.writable) output.write(`${outcome.response}\n`);
    });
    running.add(handled);
    void handled.finally(() => running.delete(handled));
  }
  stop.removeEventListener("abort", stopReading);
  if (stop.aborted) return;
  await Promise.allSettled(running);
  // Everything written reaches the client before the caller closes up and exits.
  await new Promise<void>((resolve) => output.write("", () => resolve()));
}
