// Requests that miss the same issue list page at the same list version share one build: while issues keep changing
// every version is new, and without this each of N waiting requests would build the very same page at once.
export class SharedPageBuilds {
  private readonly building = new Map<string, Promise<string>>();

  /** `build`'s result for this key and version, started once however many requests ask meanwhile. */
  run(key: string, version: number, build: () => Promise<string>): Promise<string> {
    const buildKey = `${version} ${key}`;
    const running = this.building.get(buildKey);
    if (running) return running;
    const started = build().finally(() => this.building.delete(buildKey));
    this.building.set(buildKey, started);
    return started;
  }
}
