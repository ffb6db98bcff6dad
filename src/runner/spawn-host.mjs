// The runner's CLIs are started by this small process of its own (spawner.ts), never by the runner itself. Starting a
// program copies the starting process's page tables, and until the child has exec'd every page the parent writes is
// copied again, the other CPUs told each time: a runner that started its CLIs itself paid for that in its claims,
// reports and heartbeats (on a virtual machine, a third of its main thread's work, measured with a thread forking beside
// an allocating loop). Should the runner die, what it started ends with it instead of working on unwatched.
// Plain JavaScript, no TypeScript loader: it starts in milliseconds and loads nothing else.
import { spawn } from "node:child_process";

/** @type {Map<number, import("node:child_process").ChildProcess>} */
const children = new Map();

/** @param {Record<string, unknown>} message */
function tellRunner(message) {
  if (process.connected) process.send?.(message);
}

process.on("message", (/** @type {any} */ command) => {
  if (command.type === "spawn") start(command);
  else if (command.type === "release") release(command.id);
});

// A terminal's Ctrl-C reaches the whole foreground group: the runner decides what stops, and when.
process.on("SIGINT", () => {});

// The runner is gone (killed, crashed): nothing it started may go on working unwatched.
process.on("disconnect", () => {
  for (const child of children.values()) {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) continue;
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  process.exit(0);
});

/** @param {{ id: number, file: string, args: string[], options: import("node:child_process").SpawnOptions, input: string }} request */
function start(request) {
  const { id } = request;
  /** @type {import("node:child_process").ChildProcess} */
  let child;
  try {
    child = spawn(request.file, request.args, { ...request.options, stdio: ["pipe", "pipe", "pipe"] });
  } catch (error) {
    tellRunner({ id, type: "error", message: error instanceof Error ? error.message : String(error) });
    return;
  }
  if (child.pid === undefined) {
    child.once("error", (error) => tellRunner({ id, type: "error", message: error.message }));
    return;
  }
  children.set(id, child);
  tellRunner({ id, type: "started", pid: child.pid });
  child.stdin?.on("error", () => {}); // a CLI that does not read its stdin closes the pipe early
  child.stdin?.end(request.input);
  child.stdout?.setEncoding("utf8");
  child.stdout?.on("data", (data) => tellRunner({ id, type: "stdout", data }));
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (data) => tellRunner({ id, type: "stderr", data }));
  child.once("exit", (code, signal) => tellRunner({ id, type: "exit", code, signal }));
  child.once("close", () => {
    tellRunner({ id, type: "close" });
    children.delete(id);
  });
}

/** The runner is done with the child: pipes still open (held by something it left running) are let go. */
function release(id) {
  const child = children.get(id);
  if (!child) return;
  children.delete(id);
  child.stdout?.destroy();
  child.stderr?.destroy();
  child.stdin?.destroy();
}
