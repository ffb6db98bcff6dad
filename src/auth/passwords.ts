// bcrypt's native async functions hash on libuv's thread pool, so logins never stall the event loop. At most
// two hashes run at once: the pool has four threads, and everything else that uses it (WebCrypto for tokens,
// file system calls) must never queue behind a burst of logins.
// Waiting checks (logins) go before waiting hashes (registrations): a flood of sign-ups, each as costly as a login,
// must not keep existing users out.
import bcrypt from "bcrypt";

export const DEFAULT_BCRYPT_ROUNDS = 12;
/** bcrypt reads at most 72 bytes; longer passwords are refused rather than silently truncated. */
export const MAX_PASSWORD_BYTES = 72;
const CONCURRENT_HASHES = 2;

/** The process's share of the thread pool: a property of this process, not state to share with others. */
let running = 0;
const waitingChecks: (() => void)[] = [];
const waitingHashes: (() => void)[] = [];

async function withHashSlot<T>(waiting: (() => void)[], work: () => Promise<T>): Promise<T> {
  if (running >= CONCURRENT_HASHES) await new Promise<void>((resolve) => waiting.push(resolve));
  else running += 1;
  try {
    return await work();
  } finally {
    // The slot passes straight to the next waiter, checks first.
    const next = waitingChecks.shift() ?? waitingHashes.shift();
    if (next) next();
    else running -= 1;
  }
}

export const hashPassword = (password: string, rounds: number): Promise<string> =>
  withHashSlot(waitingHashes, () => bcrypt.hash(password, rounds));

export const verifyPassword = (password: string, hash: string): Promise<boolean> =>
  withHashSlot(waitingChecks, () => bcrypt.compare(password, hash));

/** How much bcrypt work this process has running and waiting (for metrics and tests). */
export const bcryptQueue = () => ({
  running,
  waitingChecks: waitingChecks.length,
  waitingHashes: waitingHashes.length,
});
