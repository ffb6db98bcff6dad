// The "run again" loop of readers woken per workspace (autopilot event triggers, webhook fan-out): a hint for a
// workspace that comes while its run is under way asks for one more run after it, however many come, so one process
// never reads a workspace twice at once and no hint is lost. A failed run ends its loop (the next hint starts afresh).
export class CoalescedRuns {
  /** Keys being run in this process, and whether a hint came in meanwhile. */
  private readonly running = new Map<string, { again: boolean; done: Promise<void> }>();

  /** `run` is one run for a key; `onError` hears one that failed. */
  constructor(
    private readonly run: (key: string) => Promise<void>,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Runs for `key` now if no run is under way, else once more after the current one. */
  hint(key: string): void {
    const current = this.running.get(key);
    if (current) {
      current.again = true;
      return;
    }
    const state = { again: false, done: Promise.resolve() };
    this.running.set(key, state);
    state.done = (async () => {
      try {
        do {
          state.again = false;
          await this.run(key);
        } while (state.again);
      } catch (error) {
        this.onError(error);
      } finally {
        this.running.delete(key);
      }
    })();
  }

  /** Resolves once nothing is being run in this process (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running.values()].map((state) => state.done));
  }
}
