// One `python3 bridge.py tools.py` process: JSON lines in and out, many calls in flight, matched by id.
import { type ChildProcess, spawn } from "node:child_process";
import { basename } from "node:path";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { ToolsFileError } from "./tools-file-error.ts";

const BRIDGE = fileURLToPath(new URL("./python/bridge.py", import.meta.url));
const PYTHON = "python3";
const LOAD_TIMEOUT_MS = 30_000;
const CLOSE_GRACE_MS = 2_000;
const DRAIN_MS = 1_000;

export interface PythonChildOptions {
  /** While calls are in flight, the child is pinged this often (default 5 s). */
  pingIntervalMs?: number;
  /**
   * A ping unanswered this long means the child stopped answering (its event loop blocked, its input cut off): it is
   * killed, its calls fail, and the next call starts a new one (default 15 s).
   */
  pingTimeoutMs?: number;
}

type ChildMessage =
  | { type: "ready"; tools: unknown[] }
  | { type: "load_error"; error: string; line?: number | null }
  | { id: number; ok: true; result: unknown }
  | { id: number; ok: false; error: string }
  | { pong: number };

interface PendingCall {
  name: string;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

export class PythonChild {
  /** The raw definitions the tools file reported; rejects with a ToolsFileError when it cannot load. */
  readonly ready: Promise<unknown[]>;
  /** Settles once the process is gone, with how it ended. */
  readonly exited: Promise<string>;
  readonly startedAt = Date.now();
  /** When the process was found gone; undefined while it runs. */
  exitedAt: number | undefined;
  private readonly process: ChildProcess;
  private readonly pending = new Map<number, PendingCall>();
  private nextId = 1;
  private alive = true;
  private loading = true;
  private closing = false;
  private loadFailed = false;
  /** Why the process is being ended by us, when it is; reported to the calls it was running. */
  private stopReason: string | undefined;
  private pingTimer: NodeJS.Timeout | undefined;
  private pongDeadline: NodeJS.Timeout | undefined;
  private awaitedPong = 0;
  private readonly pingIntervalMs: number;
  private readonly pingTimeoutMs: number;

  constructor(
    private readonly file: string,
    options: PythonChildOptions = {},
  ) {
    this.pingIntervalMs = options.pingIntervalMs ?? 5_000;
    this.pingTimeoutMs = options.pingTimeoutMs ?? 15_000;
    this.process = spawn(PYTHON, ["-u", "-B", "-X", "utf8", BRIDGE, file], { stdio: ["pipe", "pipe", "pipe"] });
    this.process.stdin!.on("error", () => {}); // EPIPE after a crash: the exit handler reports it
    const prefix = `[${basename(file)}] `;
    createInterface({ input: this.process.stderr! }).on("line", (line) => process.stderr.write(`${prefix}${line}\n`));

    let settleReady!: { resolve(tools: unknown[]): void; reject(error: Error): void };
    this.ready = new Promise((resolve, reject) => {
      settleReady = { resolve, reject };
    });
    this.ready.catch(() => {}); // the loader or the next call observes it
    const loadTimer = setTimeout(() => {
      this.loadFailed = true;
      settleReady.reject(new ToolsFileError(file, `did not finish loading within ${LOAD_TIMEOUT_MS / 1000} s`));
      this.process.kill("SIGKILL");
    }, LOAD_TIMEOUT_MS);

    const protocol = createInterface({ input: this.process.stdout! });
    const protocolEnded = new Promise<void>((resolve) => protocol.once("close", resolve));
    protocol.on("line", (line) => {
      let message: ChildMessage;
      try {
        message = JSON.parse(line) as ChildMessage;
      } catch {
        process.stderr.write(`${prefix}(not protocol) ${line}\n`);
        return;
      }
      if ("pong" in message) {
        if (message.pong === this.awaitedPong) this.stopWaitingForPong();
        return;
      }
      if ("type" in message) {
        clearTimeout(loadTimer);
        this.loading = false;
        if (message.type === "ready") settleReady.resolve(message.tools);
        else {
          this.loadFailed = true; // the process is about to exit: send it nothing more
          settleReady.reject(new ToolsFileError(file, message.error, message.line ?? undefined));
        }
        this.updateHold();
        return;
      }
      const call = this.pending.get(message.id);
      if (!call) return; // given up (aborted) or unknown: a late answer is ignored
      this.pending.delete(message.id);
      this.updateHold();
      if (message.ok) call.resolve(message.result);
      else call.reject(new Error(message.error));
    });

    this.exited = new Promise((resolve) => {
      const onGone = (how: string) => {
        if (!this.alive) return;
        this.alive = false;
        this.exitedAt = Date.now();
        clearTimeout(loadTimer);
        clearInterval(this.pingTimer);
        this.stopWaitingForPong();
        settleReady.reject(new ToolsFileError(file, `the Python process ended while loading (${how})`));
        for (const call of this.pending.values()) {
          call.reject(
            new Error(
              `The Python tools process (${basename(file)}) ${this.stopReason ?? `ended (${how})`} while running ` +
                `${call.name}; it is restarted on the next call`,
            ),
          );
        }
        this.pending.clear();
        resolve(how);
      };
      this.process.on("error", (error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") {
          settleReady.reject(
            new ToolsFileError(file, `${PYTHON} was not found on PATH; it is needed to run Python tools`),
          );
        }
        onGone(error.message);
      });
      this.process.on("exit", (code, signal) => {
        const how = signal ? `killed by ${signal}` : `exit code ${code}`;
        // "exit" can come before the last answers on stdout are read: settle those first.
        const drained = setTimeout(() => onGone(how), DRAIN_MS);
        void protocolEnded.then(() => {
          clearTimeout(drained);
          onGone(how);
        });
      });
    });
  }

  get isAlive(): boolean {
    return this.alive && !this.closing && !this.loadFailed && this.stopReason === undefined;
  }

  call(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<unknown> {
    if (!this.isAlive) return Promise.reject(new Error(`The Python tools process is not running (${name})`));
    if (signal?.aborted) return Promise.reject(new Error(`The call to ${name} was cancelled`));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        if (!this.pending.delete(id)) return;
        this.updateHold();
        this.send({ cancel: id });
        this.ping(); // a call given up on may be a child that stopped answering
        reject(new Error(`The call to ${name} was cancelled`));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      const done = () => signal?.removeEventListener("abort", onAbort);
      this.pending.set(id, {
        name,
        resolve: (value) => {
          done();
          resolve(value);
        },
        reject: (error) => {
          done();
          reject(error);
        },
      });
      this.updateHold();
      this.send({ id, name, args });
    });
  }

  /** Ends the process: end of input first, then SIGKILL if it lingers. */
  async close(): Promise<void> {
    this.closing = true;
    if (!this.alive) return;
    this.process.stdin!.end();
    const timer = setTimeout(() => this.process.kill("SIGKILL"), CLOSE_GRACE_MS);
    await this.exited;
    clearTimeout(timer);
  }

  private send(message: object): void {
    if (this.alive) this.process.stdin!.write(`${JSON.stringify(message)}\n`);
  }

  private ping(): void {
    if (!this.alive || this.loading || this.pongDeadline) return;
    this.awaitedPong++;
    this.pongDeadline = setTimeout(() => this.stoppedAnswering(), this.pingTimeoutMs).unref();
    this.send({ ping: this.awaitedPong });
  }

  private stopWaitingForPong(): void {
    clearTimeout(this.pongDeadline);
    this.pongDeadline = undefined;
  }

  private stoppedAnswering(): void {
    this.stopReason = `stopped answering (no answer to a ping within ${this.pingTimeoutMs} ms)`;
    process.stderr.write(`[${basename(this.file)}] ${this.stopReason}: ending it\n`);
    this.process.kill("SIGKILL");
  }

  /** An idle child must not keep Node running; one that is loading or has calls in flight must, and is watched. */
  private updateHold(): void {
    const busy = this.loading || this.pending.size > 0;
    const watched = this.alive && !this.loading && this.pending.size > 0;
    if (watched && !this.pingTimer) {
      this.pingTimer = setInterval(() => this.ping(), this.pingIntervalMs).unref();
    } else if (!watched && this.pingTimer) {
      clearInterval(this.pingTimer);
      this.pingTimer = undefined;
    }
    for (const handle of [this.process, this.process.stdout, this.process.stderr, this.process.stdin]) {
      const refable = handle as (Readable | ChildProcess) & { ref?(): void; unref?(): void };
      if (busy) refable.ref?.();
      else refable.unref?.();
    }
  }
}
