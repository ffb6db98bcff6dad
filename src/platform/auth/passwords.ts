// bcrypt's native async functions hash on libuv's thread pool, so logins never stall the event loop.
import bcrypt from "bcrypt";

export const DEFAULT_BCRYPT_ROUNDS = 12;
/** bcrypt reads at most 72 bytes; longer passwords are refused rather than silently truncated. */
export const MAX_PASSWORD_BYTES = 72;

export const hashPassword = (password: string, rounds: number): Promise<string> => bcrypt.hash(password, rounds);

export const verifyPassword = (password: string, hash: string): Promise<boolean> => bcrypt.compare(password, hash);
