import { createHash, randomBytes } from "node:crypto";

/** Every key starts with this, so a bearer credential can be told apart from a JWT at a glance. */
const API_KEY_PREFIX = "ap_";

export function generateApiKey(): { key: string; prefix: string; hash: string } {
  const key = `${API_KEY_PREFIX}${randomBytes(32).toString("base64url")}`;
  return { key, prefix: key.slice(0, 10), hash: hashApiKey(key) };
}

// A key carries 256 random bits, so a fast hash is enough; lookups go by hash through a unique index,
// which never compares the secret itself byte by byte.
export const hashApiKey = (key: string): string => createHash("sha256").update(key).digest("hex");

export const looksLikeApiKey = (credential: string): boolean => credential.startsWith(API_KEY_PREFIX);
