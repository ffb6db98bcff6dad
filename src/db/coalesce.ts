// The "read (or claim) again" loop of everything woken by hints: a hint that comes while a pass is under way asks for
// one more pass after it, however many come, so hints never start two passes at once and none is lost.
export class Coalescer {
  private running: Promise<void> | undefined;
  private again = false;

  /** `work` is one pass; `onError` hears a pass that failed (the next run() starts afresh). */
  constructor(
    private readonly work: () => Promise<void>,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Runs a pass now if none is under way, else once more after the current one. */
  run(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.passes().finally(() => {
      this.running = undefined;
    });
  }

  /** A pass is under way. */
  get busy(): boolean {
    return this.running !== undefined;
  }

  /** Resolves once no pass is under way (shutdown). */
  async idle(): Promise<void> {
    await this.running;
  }

  private async passes(): Promise<void> {
    do {
      this.again = false;
      try {
        await this.work();
      } catch (error) {
        this.again = false;
        this.onError(error);
      }
    } while (this.again);
  }
}
