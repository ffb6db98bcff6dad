// The two credentials of runtimes (runtimes.md): a runner token `apr_…` (an admin makes it; it opens the runner API of
// its workspace only) and a task token `apt_…` (handed to a runner with one task; it acts as the task's agent while
// the task runs). Both carry 256 random bits and are stored as their SHA-256, looked up by a unique index and then
// compared in constant time.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

export const RUNNER_TOKEN_PREFIX = "apr_";
export const TASK_TOKEN_PREFIX = "apt_";

export interface NewSecret {
  token: string;
  hash: string;
}

function generate(prefix: string): NewSecret {
  const token = `${prefix}${randomBytes(32).toString("base64url")}`;
  return { token, hash: hashSecret(token) };
}

export const generateRunnerToken = (): NewSecret => generate(RUNNER_TOKEN_PREFIX);
export const generateTaskToken = (): NewSecret => generate(TASK_TOKEN_PREFIX);

export const hashSecret = (token: string): string => createHash("sha256").update(token).digest("hex");

/** Constant-time: whether a stored hash is the one of the token sent. */
export function sameSecretHash(stored: string, sent: string): boolean {
  const a = Buffer.from(stored);
  const b = Buffer.from(sent);
  return a.length === b.length && timingSafeEqual(a, b);
}

export const looksLikeRunnerToken = (credential: string): boolean => credential.startsWith(RUNNER_TOKEN_PREFIX);
export const looksLikeTaskToken = (credential: string): boolean => credential.startsWith(TASK_TOKEN_PREFIX);
