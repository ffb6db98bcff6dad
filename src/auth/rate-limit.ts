// Login attempts counted per email and per client address in fixed windows, in this process's memory
// (behind a load balancer each instance counts its own share).

export interface LoginRateLimitOptions {
  /** Failed attempts allowed per email from one client address within the window. */
  failuresPerEmail: number;
  /** Attempts (failed or not) allowed per client address within the window. */
  attemptsPerAddress: number;
  windowMs: number;
}

export const DEFAULT_LOGIN_RATE_LIMIT: LoginRateLimitOptions = {
  failuresPerEmail: 10,
  attemptsPerAddress: 60,
  windowMs: 15 * 60 * 1000,
};

interface Window {
  count: number;
  resetAt: number;
}

class FixedWindowCounter {
  private readonly windows = new Map<string, Window>();

  constructor(private readonly windowMs: number) {}

  count(key: string, at: number): number {
    const window = this.windows.get(key);
    return window && window.resetAt > at ? window.count : 0;
  }

  add(key: string, at: number): void {
    const window = this.windows.get(key);
    if (window && window.resetAt > at) window.count += 1;
    else this.windows.set(key, { count: 1, resetAt: at + this.windowMs });
    if (this.windows.size > 100_000) this.sweep(at);
  }

  clear(key: string): void {
    this.windows.delete(key);
  }

  retryAfterSeconds(key: string, at: number): number {
    const window = this.windows.get(key);
    return window ? Math.max(1, Math.ceil((window.resetAt - at) / 1000)) : 1;
  }

  private sweep(at: number): void {
    for (const [key, window] of this.windows) if (window.resetAt <= at) this.windows.delete(key);
  }
}

export class LoginRateLimiter {
  private readonly failuresByEmail: FixedWindowCounter;
  private readonly attemptsByAddress: FixedWindowCounter;

  constructor(private readonly options: LoginRateLimitOptions = DEFAULT_LOGIN_RATE_LIMIT) {
    this.failuresByEmail = new FixedWindowCounter(options.windowMs);
    this.attemptsByAddress = new FixedWindowCounter(options.windowMs);
  }

  /** Counts an attempt; returns the seconds to wait when the caller is over a limit, else undefined. */
  admit(emailKey: string, address: string, at = Date.now()): number | undefined {
    if (this.failuresByEmail.count(emailKey, at) >= this.options.failuresPerEmail) {
      return this.failuresByEmail.retryAfterSeconds(emailKey, at);
    }
    if (this.attemptsByAddress.count(address, at) >= this.options.attemptsPerAddress) {
      return this.attemptsByAddress.retryAfterSeconds(address, at);
    }
    this.attemptsByAddress.add(address, at);
    return undefined;
  }

  recordFailure(emailKey: string, at = Date.now()): void {
    this.failuresByEmail.add(emailKey, at);
  }

  recordSuccess(emailKey: string): void {
    this.failuresByEmail.clear(emailKey);
  }
}
