// Pools with ordered fallback (spec runtimes.md §3): an agent's selectors name pools of runtimes in order of
// preference. A runtime of pool k takes the agent's task only while no online runtime of an earlier pool has a free
// slot, so work goes to the preferred pool first and spills over in order when it is full or offline.
import type { RuntimeSelector } from "../platform/agents/schemas.ts";

export interface PoolRuntime {
  id: string;
  kind: string;
  tags: string[];
  maxConcurrentTasks: number;
  /** Tasks it runs now (counting those handed out in the claim under way). */
  runningTasks: number;
}

export function matches(selector: RuntimeSelector, runtime: PoolRuntime): boolean {
  if (selector.kind !== undefined && selector.kind !== runtime.kind) return false;
  if (selector.runtime_id !== undefined && selector.runtime_id !== runtime.id) return false;
  return (selector.tags ?? []).every((tag) => runtime.tags.includes(tag));
}

const hasRoom = (runtime: PoolRuntime) => runtime.runningTasks < runtime.maxConcurrentTasks;

/**
 * The runtime of `ours` (the claiming runner's) that takes a task of an agent with `selectors` now, the least busy
 * of the first pool with room; undefined when the task is not ours to take (an earlier pool of another runner has
 * room, or none of ours matches or has room). `online` is every online runtime of the workspace.
 */
export function chooseRuntime(
  selectors: RuntimeSelector[],
  online: PoolRuntime[],
  ours: ReadonlySet<string>,
): PoolRuntime | undefined {
  for (const selector of selectors) {
    const free = online.filter((runtime) => matches(selector, runtime) && hasRoom(runtime));
    const mine = free.filter((runtime) => ours.has(runtime.id));
    if (mine.length > 0)
      return mine.reduce((best, runtime) => (runtime.runningTasks < best.runningTasks ? runtime : best));
    if (free.length > 0) return undefined;
  }
  return undefined;
}

/** Whether no online runtime matches any selector: the task waits for a runtime to come online. */
export const waitsForRuntime = (selectors: RuntimeSelector[], online: PoolRuntime[]): boolean =>
  !selectors.some((selector) => online.some((runtime) => matches(selector, runtime)));

/** The stored selectors (agents.runtime_select); none when unreadable. */
export function selectorsOf(stored: string | null): RuntimeSelector[] {
  if (stored === null) return [];
  try {
    const parsed = JSON.parse(stored) as unknown;
    return Array.isArray(parsed) ? (parsed as RuntimeSelector[]) : [];
  } catch {
    return [];
  }
}
