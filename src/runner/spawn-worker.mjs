// The runner's CLIs are started here, on a thread of their own (spawner.ts). Starting a process blocks the thread that
// starts it until the child has replaced itself with the program (fork, then exec), and on a busy machine the child
// waits its turn for a CPU first: 15 ms and more each time. Here that wait holds up only the next start, never the
// runner's claims, reports and heartbeats. Plain JavaScript: a worker thread does not get the TypeScript loader.
import { spawn } from "node:child_process";
import { parentPort } from "node:worker_threads";

/** @type {Map<number, import("node:child_process").ChildProcess>} */
const children = new Map();

parentPort?.on("message", (message) => {
  if (message.type === "spawn") start(message);
  else if (message.type === "release") release(message.id);
});

/** @param {{ id: number, file: string, args: string[], options: import("node:child_process").SpawnOptions, input: string }} request */
function start(request) {
  const { id } = request;
  /** @type {import("node:child_process").ChildProcess} */
  let child;
  try {
    child = spawn(request.file, request.args, { ...request.options, stdio: ["pipe", "pipe", "pipe"] });
  } catch (error) {
    parentPort?.postMessage({ id, type: "error", message: error instanceof Error ? error.message : String(error) });
    return;
  }
  if (child.pid === undefined) {
    child.once("error", (error) => parentPort?.postMessage({ id, type: "error", message: error.message }));
    return;
  }
  children.set(id, child);
  parentPort?.postMessage({ id, type: "started", pid: child.pid });
  child.stdin?.on("error", () => {}); // a CLI that does not read its stdin closes the pipe early
  child.stdin?.end(request.input);
  child.stdout?.setEncoding("utf8");
  child.stdout?.on("data", (data) => parentPort?.postMessage({ id, type: "stdout", data }));
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (data) => parentPort?.postMessage({ id, type: "stderr", data }));
  child.once("exit", (code, signal) => parentPort?.postMessage({ id, type: "exit", code, signal }));
  child.once("close", () => parentPort?.postMessage({ id, type: "close" }));
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
