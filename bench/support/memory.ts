// Reading a benchmark server's memory: it collects garbage and prints process.memoryUsage() on SIGUSR2
// (memory-on-signal.ts); RSS is read from /proc so it is the kernel's figure at that moment.
import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";

export interface Memory {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
}

export const rssKiB = (pid: number): number => {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(match?.[1] ?? 0);
};

/** The child's memory after two full collections. */
export async function settledMemory(child: ChildProcess): Promise<Memory> {
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  let last: Memory | undefined;
  lines.on("line", (text) => {
    last = JSON.parse(text) as Memory;
  });
  for (let round = 0; round < 2; round += 1) {
    last = undefined;
    child.kill("SIGUSR2");
    const deadline = Date.now() + 5_000;
    while (!last && Date.now() < deadline) await sleep(50);
    await sleep(200);
  }
  lines.close();
  if (!last) throw new Error("the server did not report its memory");
  return { ...last, rss: rssKiB(child.pid ?? 0) * 1024 };
}
