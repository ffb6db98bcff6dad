// A graceful stop's first step: from SIGTERM on, the process says it is not ready (load balancers stop sending it
// requests) and its parts stop taking new work, while what is in flight goes on until the server closes.
export class Drain {
  private started = false;
  private readonly listeners: Array<() => void> = [];

  get draining(): boolean {
    return this.started;
  }

  /** `listener` runs once, when draining starts (at once if it already has). */
  onStart(listener: () => void): void {
    if (this.started) listener();
    else this.listeners.push(listener);
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    for (const listener of this.listeners.splice(0)) listener();
  }
}
