// The one way a test waits for something it cannot be told about: poll a check until it holds.
// Prefer a real sync point (an event, a stream frame, a promise) where one exists; this is for state read from
// outside (a row, a counter, a log). Not vi.waitFor: bench/ imports these helpers outside vitest, and a test that
// fakes timers must not have them advanced by the wait.

const INTERVAL_MS = 20;

/**
 * Calls `check` until it returns something other than undefined, null or false, and resolves with that. A check
 * that throws (an `expect` not yet true) is tried again; after `timeoutMs` the wait fails naming `what` and the
 * last error.
 */
export async function eventually<T>(
  check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  what = "a condition",
  timeoutMs = 15_000,
): Promise<T> {
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
  }, timeoutMs);
  let lastError: unknown;
  try {
    for (;;) {
      try {
        const value = await check();
        if (value !== undefined && value !== null && value !== false) return value;
      } catch (error) {
        lastError = error;
      }
      if (timedOut) {
        const cause = lastError instanceof Error ? `: ${lastError.message}` : "";
        throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${cause}`, { cause: lastError });
      }
      await new Promise((resolve) => setTimeout(resolve, INTERVAL_MS));
    }
  } finally {
    clearTimeout(timer);
  }
}
