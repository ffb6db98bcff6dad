// Child processes started off the runner's main thread (spawn-worker.mjs says why), seen from here as the parts of a
// ChildProcess a CliProcess reads: when it started (its pid) or could not, its stdout as a stream, its stderr as
// text, its exit and the close of its pipes.
import { EventEmitter } from "node:events";
import { PassThrough } from "node:stream";
import { Worker } from "node:worker_threads";

export interface SpawnRequest {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** Run `file` as a /bin/sh command line. */
  shell: boolean;
  argv0?: string;
  /** Written to its stdin, which is then closed. */
  input: string;
}

type WorkerMessage =
  | { id: number; type: "started"; pid: number }
  | { id: number; type: "error"; message: string }
  | { id: number; type: "stdout" | "stderr"; data: string }
  | { id: number; type: "exit"; code: number | null; signal: NodeJS.Signals | null }
  | { id: number; type: "close" };

/** One child started by the worker. Events: `exit` (code, signal), `close`, `stderr` (text). */
export class SpawnedChild extends EventEmitter {
  readonly stdout = new PassThrough({ encoding: "utf8" });
  /** Its pid, or the reason it could not be started. */
  readonly started: Promise<{ pid: number } | { error: string }>;
  pid: number | undefined;
  private resolveStart!: (outcome: { pid: number } | { error: string }) => void;

  constructor(
    private readonly spawner: Spawner,
    readonly id: number,
  ) {
    super();
    this.started = new Promise((resolve) => {
      this.resolveStart = resolve;
    });
  }

  /** Lets go of its pipes: what it left running may hold them open, but the runner reads no more. */
  release(): void {
    this.stdout.destroy();
    this.spawner.release(this.id);
  }

  receive(message: WorkerMessage): void {
    switch (message.type) {
      case "started":
        this.pid = message.pid;
        this.resolveStart({ pid: message.pid });
        return;
      case "error":
        this.resolveStart({ error: message.message });
        return;
      case "stdout":
        this.stdout.write(message.data);
        return;
      case "stderr":
        this.emit("stderr", message.data);
        return;
      case "exit":
        this.emit("exit", message.code, message.signal);
        return;
      case "close":
        this.stdout.end();
        this.emit("close");
        return;
    }
  }
}

/** The runner's one process-starting thread, started with the first child. */
export class Spawner {
  private worker: Worker | undefined;
  private readonly children = new Map<number, SpawnedChild>();
  private nextId = 1;

  spawn(request: SpawnRequest): SpawnedChild {
    const child = new SpawnedChild(this, this.nextId++);
    this.children.set(child.id, child);
    const { file, args, input, cwd, env, shell, argv0 } = request;
    // Its own process group (detached), so that a stop ends everything the CLI started.
    const options = { cwd, env, detached: true, shell: shell ? "/bin/sh" : false, ...(argv0 ? { argv0 } : {}) };
    this.thread().postMessage({ type: "spawn", id: child.id, file, args, options, input });
    return child;
  }

  release(id: number): void {
    if (!this.children.delete(id)) return;
    this.worker?.postMessage({ type: "release", id });
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(new URL("./spawn-worker.mjs", import.meta.url));
    worker.on("message", (message: WorkerMessage) => {
      const child = this.children.get(message.id);
      child?.receive(message);
      if (message.type === "error") this.children.delete(message.id);
    });
    // Should the thread ever stop, every child it held ends as not started or exited, and the next starts a new one.
    worker.on("exit", () => {
      if (this.worker === worker) this.worker = undefined;
      for (const child of this.children.values()) {
        if (child.pid === undefined)
          child.receive({ id: child.id, type: "error", message: "the process starter stopped" });
        else {
          child.receive({ id: child.id, type: "exit", code: null, signal: null });
          child.receive({ id: child.id, type: "close" });
        }
      }
      this.children.clear();
    });
    worker.on("error", () => {});
    // After the listeners (adding one refs the thread again): the runner exits when its own work is done.
    worker.unref();
    this.worker = worker;
    return worker;
  }
}

/** One per runner process: every CliProcess starts its CLI through it. */
export const spawner = new Spawner();
