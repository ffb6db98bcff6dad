// Child processes started by a small process of the runner's own (spawn-host.mjs says why), seen from here as the parts
// of a ChildProcess a CliProcess reads: when it started (its pid) or could not, its stdout as a stream, its stderr as
// text, its exit and the close of its pipes.
import { type ChildProcess, fork } from "node:child_process";
import { EventEmitter } from "node:events";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";

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

type HostMessage =
  | { id: number; type: "started"; pid: number }
  | { id: number; type: "error"; message: string }
  | { id: number; type: "stdout" | "stderr"; data: string }
  | { id: number; type: "exit"; code: number | null; signal: NodeJS.Signals | null }
  | { id: number; type: "close" };

/** One child started by the host. Events: `exit` (code, signal), `close`, `stderr` (text). */
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

  receive(message: HostMessage): void {
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

/** The runner's one process starter, started with the first child. */
export class Spawner {
  private host: ChildProcess | undefined;
  private readonly children = new Map<number, { child: SpawnedChild; host: ChildProcess }>();
  private nextId = 1;

  spawn(request: SpawnRequest): SpawnedChild {
    const child = new SpawnedChild(this, this.nextId++);
    const host = this.started();
    this.children.set(child.id, { child, host });
    const { file, args, input, cwd, env, shell, argv0 } = request;
    // Its own process group (detached), so that a stop ends everything the CLI started.
    const options = { cwd, env, detached: true, shell: shell ? "/bin/sh" : false, ...(argv0 ? { argv0 } : {}) };
    host.send({ type: "spawn", id: child.id, file, args, options, input });
    return child;
  }

  release(id: number): void {
    const entry = this.children.get(id);
    if (!entry) return;
    this.children.delete(id);
    if (entry.host.connected) entry.host.send({ type: "release", id });
  }

  private started(): ChildProcess {
    if (this.host?.connected) return this.host;
    // Nothing of the runner's environment or flags (its token, a loader): the host needs none, each CLI gets its own.
    const host = fork(HOST, [], { env: {}, execArgv: [], stdio: ["ignore", "ignore", "inherit", "ipc"] });
    host.on("message", (message: HostMessage) => {
      this.children.get(message.id)?.child.receive(message);
      if (message.type === "error") this.children.delete(message.id);
    });
    // Should the host ever stop (or not start at all), every child it held ends as not started or exited; the next
    // spawn starts a new host.
    const lost = () => {
      if (this.host === host) this.host = undefined;
      for (const [id, { child, host: startedBy }] of this.children) {
        if (startedBy !== host) continue;
        this.children.delete(id);
        if (child.pid === undefined) child.receive({ id, type: "error", message: "the process starter stopped" });
        else {
          child.receive({ id, type: "exit", code: null, signal: null });
          child.receive({ id, type: "close" });
        }
      }
    };
    host.once("exit", lost);
    host.on("error", () => {
      if (host.pid === undefined) lost();
    });
    // The runner exits when its own work is done, whatever the host is doing.
    host.unref();
    host.channel?.unref();
    this.host = host;
    return host;
  }
}

const HOST = fileURLToPath(new URL("./spawn-host.mjs", import.meta.url));

/** One per runner process: every CliProcess starts its CLI through it. */
export const spawner = new Spawner();
