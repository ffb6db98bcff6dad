// `agent-platform` started as a user starts it: node running bin/agent-platform.js in a working directory of its own
// (whose ./data is the default database), with only PATH and HOME of this environment plus what the test sets.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const BIN = join(ROOT, "bin/agent-platform.js");

export interface BinOptions {
  /** Added to PATH and HOME. */
  env?: Record<string, string>;
  /** Default: a new temporary directory, removed once the process has exited. */
  cwd?: string;
  stdin?: "ignore" | "pipe";
  /** Its own process group, as a terminal's Ctrl-C signals it. */
  detached?: boolean;
  /** Another copy of the bin (an unpacked package). */
  bin?: string;
}

export interface BinProcess {
  child: ChildProcess;
  cwd: string;
  /** What it printed so far. */
  output(): { stdout: string; stderr: string };
  /** Its exit code (null when a signal ended it), once its working directory is cleaned up. */
  exited: Promise<number | null>;
  /** The first match of `pattern` in what it prints (on stdout, stderr or either); fails if it exits first. */
  printed(pattern: RegExp, options?: { on?: "stdout" | "stderr"; timeoutMs?: number }): Promise<RegExpExecArray>;
}

export interface ServerProcess extends BinProcess {
  url: string;
  port: number;
}

const running = new Set<BinProcess>();

export function runBin(args: string[], options: BinOptions = {}): BinProcess {
  const ownDir = options.cwd === undefined;
  const cwd = options.cwd ?? mkdtempSync(join(tmpdir(), "agent-platform-bin-"));
  const child = spawn(process.execPath, [options.bin ?? BIN, ...args], {
    cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...options.env },
    stdio: [options.stdin ?? "ignore", "pipe", "pipe"],
    detached: options.detached ?? false,
  });
  const output = { stdout: "", stderr: "" };
  child.stdout?.on("data", (chunk) => {
    output.stdout += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output.stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code) => {
      if (ownDir) rmSync(cwd, { recursive: true, force: true });
      resolve(code);
    }),
  );
  const printed: BinProcess["printed"] = (pattern, { on, timeoutMs = 60_000 } = {}) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const look = () => {
        const match =
          (on !== "stderr" ? pattern.exec(output.stdout) : null) ??
          (on !== "stdout" ? pattern.exec(output.stderr) : null);
        if (!match) return false;
        stopLooking();
        resolve(match);
        return true;
      };
      const exit = (code: number | null) => {
        stopLooking();
        reject(
          new Error(`agent-platform ${args.join(" ")} exited (${code}) before printing ${pattern}: ${output.stderr}`),
        );
      };
      const timer = setTimeout(() => {
        stopLooking();
        reject(
          new Error(`agent-platform ${args.join(" ")} printed no ${pattern} in ${timeoutMs} ms: ${output.stderr}`),
        );
      }, timeoutMs);
      const stopLooking = () => {
        clearTimeout(timer);
        child.stdout?.off("data", look);
        child.stderr?.off("data", look);
        child.off("exit", exit);
      };
      if (look()) return;
      if (child.exitCode !== null || child.signalCode !== null) return exit(child.exitCode);
      // Listeners added after the output collectors above: a chunk is already in `output` when `look` runs.
      child.stdout?.on("data", look);
      child.stderr?.on("data", look);
      child.on("exit", exit);
    });
  const process_: BinProcess = { child, cwd, output: () => ({ ...output }), exited, printed };
  running.add(process_);
  void exited.then(() => running.delete(process_));
  return process_;
}

/**
 * `agent-platform serve|call --port 0` (info logs on), resolved once it printed the address it listens on: `serve`
 * says so on stdout, `call` on stderr. One that does not start is killed, and the wait fails with its output.
 */
export async function startBin(
  command: "serve" | "call",
  args: string[] = [],
  options: BinOptions & { startTimeoutMs?: number } = {},
): Promise<ServerProcess> {
  const started = runBin([command, "--port", "0", ...args], {
    ...options,
    env: { LOG_LEVEL: "info", ...options.env },
  });
  try {
    const [, url] = await started.printed(/(?:listening on|running on|\(local) (http:\/\/127\.0\.0\.1:\d+)/, {
      timeoutMs: options.startTimeoutMs ?? 120_000,
    });
    return { ...started, url: url!, port: Number(new URL(url!).port) };
  } catch (error) {
    started.child.kill("SIGKILL");
    throw error;
  }
}

/** Ends every process a test left running (after each test or file) and waits until each has exited. */
export async function stopBins(): Promise<void> {
  const left = [...running];
  for (const bin of left) {
    if (bin.child.exitCode === null && bin.child.signalCode === null) bin.child.kill("SIGKILL");
  }
  await Promise.all(left.map((bin) => bin.exited));
}
