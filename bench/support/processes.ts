import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import autocannon from "autocannon";

const root = new URL("../../", import.meta.url).pathname;

/** Starts `tsx <script>` as a child process and resolves with the first URL it prints (a log line may come first). */
export async function startChild(
  script: string,
  args: string[] = [],
  env: Record<string, string> = {},
  nodeFlags: string[] = [],
): Promise<{ url: string; child: ChildProcess; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [...nodeFlags, "--import", "tsx", `${root}${script}`, ...args], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    const onLine = (line: string) => {
      if (!/^https?:\/\//.test(line.trim())) return;
      lines.off("line", onLine);
      resolve(line);
    };
    lines.on("line", onLine);
    child.once("exit", (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return {
    url: url.trim(),
    child,
    stop: () =>
      new Promise((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

export interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

export async function load(options: autocannon.Options): Promise<LoadResult> {
  const result = await autocannon(options);
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

export const fmt = (value: number, digits = 1) => value.toFixed(digits);
