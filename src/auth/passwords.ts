// bcrypt's native async functions hash on libuv's thread pool, so logins never stall the event loop. At most
// two hashes run at once: the pool has four threads, and everything else that uses it (WebCrypto for tokens,
// file system calls) must never queue behind a burst of logins.
import bcrypt from "bcrypt";

export const DEFAULT_BCRYPT_ROUNDS = 12;
/** bcrypt reads at most 72 bytes; longer passwords are refused rather than silently truncated. */
export const MAX_PASSWORD_BYTES = 72;
const CONCURRENT_HASHES = 2;

let running = 0;
const waiting: (() => void)[] = [];

async function withHashSlot<T>(work: () => Promise<T>): Promise<T> {
  if (running >= CONCURRENT_HASHES) await new Promise<void>((resolve) => waiting.push(resolve));
  else running += 1;
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  }
}

export const hashPassword = (password: string, rounds: number): Promise<string> =>
  withHashSlot(() => bcrypt.hash(password, rounds));

export const verifyPassword = (password: string, hash: string): Promise<boolean> =>
  withHashSlot(() => bcrypt.compare(password, hash));
