// Calls to the runner API that must get through: re-sent with backoff (up to 30 s between tries) while the server is
// down, restarting or overloaded; an answer that says no (4xx) is final and thrown.
import { setTimeout as delay } from "node:timers/promises";
import { RunnerApiError } from "./client.ts";

const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 30_000;

export class Backoff {
  private failures = 0;

  /** The wait before the next try: doubling from 0.5 s to 30 s, with a little jitter so runners do not align. */
  next(): number {
    const base = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** this.failures);
    this.failures++;
    return Math.round(base * (0.8 + Math.random() * 0.2));
  }

  reset(): void {
    this.failures = 0;
  }
}

/** Whether another try may succeed: the server was not reached, failed, or asked to slow down. */
export function isTransient(error: unknown): boolean {
  if (error instanceof RunnerApiError) return error.status >= 500 || error.status === 429 || error.status === 408;
  return !(error instanceof Error && error.name === "AbortError");
}

export interface RetryOptions {
  signal?: AbortSignal;
  /** Told before each wait, e.g. to say once that the server cannot be reached. */
  onRetry?: (error: unknown, waitMs: number) => void;
}

export async function untilAnswered<T>(call: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const backoff = new Backoff();
  for (;;) {
    try {
      return await call();
    } catch (error) {
      if (!isTransient(error) || options.signal?.aborted) throw error;
      const waitMs = backoff.next();
      options.onRetry?.(error, waitMs);
      await delay(waitMs, undefined, { signal: options.signal });
    }
  }
}
