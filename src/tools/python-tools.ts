// Loads tools.py through a long-lived python3 child, restarted on the next call after it dies.
import { setTimeout as delay } from "node:timers/promises";
import { PythonChild, type PythonChildOptions } from "./python-child.ts";
import type { Tool } from "./registry.ts";
import { checkDefinitions } from "./tool-definitions.ts";

// A child that dies sooner than this after starting counts as an immediate crash: restarts then back off.
const QUICK_CRASH_MS = 2_000;
const FIRST_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 5_000;

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new Error("The call was cancelled"));
    if (signal.aborted) onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

class PythonSupervisor {
  private current: PythonChild;
  private starting: Promise<PythonChild> | undefined;
  private quickCrashes = 0;
  private closed = false;

  constructor(
    private readonly file: string,
    first: PythonChild,
    private readonly options: PythonChildOptions,
  ) {
    this.current = first;
  }

  async call(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<unknown> {
    const child = this.current.isAlive ? this.current : await this.restart(signal);
    return child.call(name, args, signal);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.starting?.catch(() => {});
    await this.current.close();
  }

  private restart(signal?: AbortSignal): Promise<PythonChild> {
    if (this.closed) return Promise.reject(new Error(`The Python tools of ${this.file} are closed`));
    this.starting ??= (async () => {
      const dead = this.current;
      const lived = (dead.exitedAt ?? Date.now()) - dead.startedAt;
      this.quickCrashes = lived < QUICK_CRASH_MS ? this.quickCrashes + 1 : 0;
      try {
        if (this.quickCrashes > 0) {
          await delay(Math.min(FIRST_BACKOFF_MS * 2 ** (this.quickCrashes - 1), MAX_BACKOFF_MS));
        }
        const child = new PythonChild(this.file, this.options);
        this.current = child;
        await child.ready;
        return child;
      } finally {
        this.starting = undefined;
      }
    })();
    // The wait is shared by all callers; one caller giving up does not stop the restart for the others.
    return signal ? abortable(this.starting, signal) : this.starting;
  }
}

export async function loadPythonTools(
  file: string,
  options: PythonChildOptions = {},
): Promise<{ tools: Tool[]; close(): Promise<void> }> {
  const child = new PythonChild(file, options);
  let definitions: ReturnType<typeof checkDefinitions>;
  try {
    definitions = checkDefinitions(await child.ready, file);
  } catch (error) {
    await child.close();
    throw error;
  }
  const supervisor = new PythonSupervisor(file, child, options);
  const tools: Tool[] = definitions.map((definition) => ({
    ...definition,
    run: (args, ctx) => supervisor.call(definition.name, args, ctx.signal),
  }));
  return { tools, close: () => supervisor.close() };
}
