// Rate limits in fixed windows, counted in the database: every process on it shares them, so a load balancer
// spreading an attacker's attempts over many instances gains nothing.
import type { Db } from "../db/index.ts";
import { timestampAt } from "../db/values.ts";

/** Every this many counts, one process sweeps the windows that have ended (of every bucket). */
const SWEEP_EVERY = 200;

/** A bucket's count in the current window, after one more was added. */
interface WindowCount {
  count: number;
  windowStart: string;
  retryAfterSeconds: number;
}

export class WindowCounter {
  private addsSinceSweep = 0;

  constructor(
    private readonly db: Db,
    private readonly windowMs: number,
  ) {}

  /** Adds one to `key`'s current window in one atomic upsert and returns the new count. */
  async add(key: string, at = Date.now()): Promise<WindowCount> {
    const startMs = Math.floor(at / this.windowMs) * this.windowMs;
    const windowStart = timestampAt(startMs);
    const row = await this.db
      .insertInto("rate_limits")
      .values({ key, window_start: windowStart, count: 1, expires_at: timestampAt(startMs + this.windowMs) })
      .onConflict((conflict) =>
        conflict.columns(["key", "window_start"]).doUpdateSet((eb) => ({ count: eb("rate_limits.count", "+", 1) })),
      )
      .returning("count")
      .executeTakeFirstOrThrow();
    this.addsSinceSweep += 1;
    if (this.addsSinceSweep >= SWEEP_EVERY) {
      this.addsSinceSweep = 0;
      await this.sweep(at);
    }
    const retryAfterSeconds = Math.max(1, Math.ceil((startMs + this.windowMs - at) / 1000));
    return { count: Number(row.count), windowStart, retryAfterSeconds };
  }

  /** Takes back one count added to the window `windowStart`. */
  async subtract(key: string, windowStart: string): Promise<void> {
    await this.db
      .updateTable("rate_limits")
      .set((eb) => ({ count: eb("count", "-", 1) }))
      .where("key", "=", key)
      .where("window_start", "=", windowStart)
      .where("count", ">", 0)
      .execute();
  }

  async clear(key: string): Promise<void> {
    await this.db.deleteFrom("rate_limits").where("key", "=", key).execute();
  }

  /** Deletes every window (of any bucket) that ended before `at`. */
  async sweep(at = Date.now()): Promise<void> {
    await this.db.deleteFrom("rate_limits").where("expires_at", "<=", timestampAt(at)).execute();
  }
}

export interface LoginRateLimitOptions {
  /** Failed attempts allowed per email from one client address within the window. */
  failuresPerEmail: number;
  /** Failed attempts (wrong password, unknown email) allowed per client address within the window. */
  failuresPerAddress: number;
  windowMs: number;
}

export const DEFAULT_LOGIN_RATE_LIMIT: LoginRateLimitOptions = {
  failuresPerEmail: 10,
  failuresPerAddress: 60,
  windowMs: 15 * 60 * 1000,
};

interface LoginAdmission {
  /** Set when the caller is over a limit: the seconds until its window ends. */
  retryAfterSeconds: number | undefined;
  /** The password was right: this attempt stops counting, and the email's failures from this address are forgotten. */
  succeeded(): Promise<void>;
}

/**
 * Only failures count. Each attempt is counted before the password is checked and taken back when it succeeds, so
 * a burst of concurrent guesses cannot all slip in before the first failure is recorded. Failures count per email
 * *and* address: a stranger who knows someone's email cannot lock them out from elsewhere; the per-address count
 * stops one address guessing across many emails, and a success only takes back itself, so logging in to one's own
 * account in between does not reset it.
 */
export class LoginRateLimiter {
  private readonly counter: WindowCounter;

  constructor(
    db: Db,
    private readonly options: LoginRateLimitOptions = DEFAULT_LOGIN_RATE_LIMIT,
  ) {
    this.counter = new WindowCounter(db, options.windowMs);
  }

  async admit(emailKey: string, address: string, at = Date.now()): Promise<LoginAdmission> {
    const emailBucket = `login-email:${emailKey} ${address}`;
    const addressBucket = `login-address:${address}`;
    const [byEmail, byAddress] = await Promise.all([
      this.counter.add(emailBucket, at),
      this.counter.add(addressBucket, at),
    ]);
    let retryAfterSeconds: number | undefined;
    if (byEmail.count > this.options.failuresPerEmail) retryAfterSeconds = byEmail.retryAfterSeconds;
    else if (byAddress.count > this.options.failuresPerAddress) retryAfterSeconds = byAddress.retryAfterSeconds;
    return {
      retryAfterSeconds,
      succeeded: async () => {
        await Promise.all([
          this.counter.clear(emailBucket),
          this.counter.subtract(addressBucket, byAddress.windowStart),
        ]);
      },
    };
  }
}

const HOUR_MS = 60 * 60 * 1000;

/** Accounts created per client address per hour; 0 turns the limit off. */
export class RegistrationRateLimiter {
  private readonly counter: WindowCounter;

  constructor(
    db: Db,
    private readonly perHour: number,
  ) {
    this.counter = new WindowCounter(db, HOUR_MS);
  }

  /** Counts a registration attempt; returns the seconds to wait when the address is over the limit. */
  async admit(address: string, at = Date.now()): Promise<number | undefined> {
    if (this.perHour === 0) return undefined;
    const registrations = await this.counter.add(`registrations:${address}`, at);
    return registrations.count > this.perHour ? registrations.retryAfterSeconds : undefined;
  }
}
