// One agent CLI as a child process: its own process group, the brief on stdin, stdout read line by line, the end of
// stderr kept for the error, a silence timeout, and a stop that ends the whole group within 5 s.
import { createInterface } from "node:readline";
import { setTimeout as delay } from "node:timers/promises";
import { groupAlive, signalGroup } from "./process-group.ts";
import { type SpawnedChild, spawner } from "./spawner.ts";

interface CliProcessOptions {
  file: string;
  args: string[];
  /** Run `file` as a /bin/sh command line. */
  shell?: boolean;
  /** The program's own name (argv[0]) when `file` is where it was found. */
  argv0?: string;
  cwd: string;
  env: Record<string, string>;
  input: string;
  /** Ended (and reported silent) after this long without a byte on stdout or stderr. */
  silenceMs: number;
  onLine: (line: string) => void;
  /** Between SIGTERM and SIGKILL; with the wait after SIGKILL the stop stays under 5 s. */
  killGraceMs?: number;
}

export type ProcessEnd =
  | { reason: "exited"; code: number | null; signal: NodeJS.Signals | null; stderrTail: string }
  | { reason: "stopped" }
  | { reason: "silent"; silenceMs: number; stderrTail: string }
  | { reason: "spawn-failed"; message: string };

const STDERR_TAIL_BYTES = 16 * 1024;
const AFTER_KILL_WAIT_MS = 1000;
/** How long output still in the pipes may take to arrive once the CLI itself has exited. */
const DRAIN_MS = 1000;

export class CliProcess {
  readonly ended: Promise<ProcessEnd>;
  private readonly child: SpawnedChild;
  private stderrTail = "";
  private silenceTimer: NodeJS.Timeout | undefined;
  private stopRequested = false;
  private wentSilent = false;
  private terminating: Promise<void> | undefined;

  constructor(private readonly options: CliProcessOptions) {
    this.child = spawner.spawn({
      file: options.file,
      args: options.args,
      cwd: options.cwd,
      env: options.env,
      shell: options.shell === true,
      ...(options.argv0 === undefined ? {} : { argv0: options.argv0 }),
      input: options.input,
    });
    this.ended = this.watch();
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Ends the CLI and everything it started; resolves once they are gone. */
  async stop(): Promise<void> {
    this.stopRequested = true;
    await this.terminate();
    await this.ended;
  }

  private async watch(): Promise<ProcessEnd> {
    const child = this.child;
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once("exit", (code, signal) => resolve({ code, signal })),
    );
    const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
    child.on("stderr", (chunk: string) => {
      this.heard();
      this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_TAIL_BYTES);
    });
    const started = await child.started;
    if ("error" in started) return { reason: "spawn-failed", message: started.error };

    const lines = createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY });
    // Closed by itself once it has given every line of the ended pipe.
    const allLinesRead = new Promise<void>((resolve) => lines.once("close", () => resolve()));
    lines.on("line", (line) => {
      this.heard();
      try {
        this.options.onLine(line);
      } catch {
        // One line the runner could not take in (a disk that is full...) must not bring the runner down.
      }
    });
    this.silenceTimer = setTimeout(() => {
      this.wentSilent = true;
      void this.terminate();
    }, this.options.silenceMs);

    const exit = await exited;
    // Output still in the pipes is read; whatever the CLI left running (holding them open or not) is ended.
    await Promise.race([closed, delay(DRAIN_MS)]);
    if (groupAlive(started.pid)) await this.terminate();
    await Promise.race([closed, delay(DRAIN_MS)]);
    // The pipes' end reaches the reader after the last lines it still holds (a CLI that prints and exits at once).
    await Promise.race([allLinesRead, delay(DRAIN_MS)]);
    clearTimeout(this.silenceTimer);
    lines.close();
    child.release();

    if (this.stopRequested) return { reason: "stopped" };
    if (this.wentSilent) return { reason: "silent", silenceMs: this.options.silenceMs, stderrTail: this.stderrTail };
    return { reason: "exited", code: exit.code, signal: exit.signal, stderrTail: this.stderrTail };
  }

  private heard(): void {
    this.silenceTimer?.refresh();
  }

  /** SIGTERM to the group, SIGKILL to what is left after the grace. */
  private terminate(): Promise<void> {
    this.terminating ??= (async () => {
      const started = await this.child.started;
      if ("error" in started) return;
      const groupId = started.pid;
      clearTimeout(this.silenceTimer);
      if (!signalGroup(groupId, "SIGTERM")) return;
      if (await waitGone(groupId, this.options.killGraceMs ?? 3000)) return;
      signalGroup(groupId, "SIGKILL");
      await waitGone(groupId, AFTER_KILL_WAIT_MS);
    })();
    return this.terminating;
  }
}

async function waitGone(groupId: number, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (groupAlive(groupId)) {
    if (Date.now() >= deadline) return false;
    await delay(25);
  }
  return true;
}

/** The last lines of stderr, for a failure's error text. */
export function lastLines(text: string, count = 20): string {
  return text.trimEnd().split("\n").slice(-count).join("\n").trim();
}
