// CPU time of processes on this machine (Linux /proc), a figure that load from other work does not inflate the way it
// inflates wall-clock latency: the server's process and the PostgreSQL backends serving one database.
import { readFileSync } from "node:fs";
import { sql } from "kysely";
import type { Db } from "../../src/db/index.ts";

/** Clock ticks per second of /proc's utime and stime (USER_HZ; 100 on Linux everywhere it runs). */
const TICKS_PER_SECOND = 100;

/** User + system CPU of `pid` so far, in ms; 0 once it is gone. */
export function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** The backends connected to `database` now, but `own` (the measuring connection's), with their CPU so far. */
export async function backendCpu(db: Db, database: string): Promise<Map<number, number>> {
  const rows = await sql<{ pid: number }>`
    select pid from pg_stat_activity where datname = ${database} and pid <> pg_backend_pid()`.execute(db);
  return new Map(rows.rows.map(({ pid }) => [Number(pid), cpuMs(Number(pid))]));
}

/** CPU ms the backends spent between two `backendCpu` readings (a backend new in `after` counts from 0). */
export function backendCpuSpent(before: Map<number, number>, after: Map<number, number>): number {
  let spent = 0;
  for (const [pid, ms] of after) spent += ms - (before.get(pid) ?? 0);
  return spent;
}
