// A CLI runs in its own process group (spawned detached), so ending it ends everything it started too: the MCP
// servers, shells and tools below it, which would otherwise keep running (and spending) after a cancel.
import { readdirSync, readFileSync } from "node:fs";

/** Sends `signal` to every process of the group; false once none is left. */
export function signalGroup(groupId: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-groupId, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether a process of the group still runs. On Linux /proc tells a zombie (dead, waiting for a parent that may
 * never reap it, as in containers whose first process is no init) from a live process; elsewhere a signal 0 does.
 */
export function groupAlive(groupId: number): boolean {
  // The usual end, every process of the group exited and reaped, is known without reading all of /proc (which costs
  // the runner milliseconds of CPU per task on a busy machine). A group that still has members, zombies or not, is
  // looked at below.
  if (groupIsEmpty(groupId)) return false;
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return signalGroup(groupId, 0);
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(entry);
    if (stat !== undefined && stat.groupId === groupId && stat.state !== "Z") return true;
  }
  return false;
}

function groupIsEmpty(groupId: number): boolean {
  try {
    process.kill(-groupId, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/** Whether one process runs (and is not a zombie). */
export function processAlive(pid: number): boolean {
  const stat = procStat(String(pid));
  if (stat !== undefined) return stat.state !== "Z";
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function procStat(pid: string): { state: string; groupId: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (command) state ppid pgrp ...": the command may hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { state: fields[0] ?? "", groupId: Number(fields[2]) };
  } catch {
    return undefined;
  }
}
