// Webhook trigger tokens: shown once (in the URL), stored only as their sha256. A call is looked up by the hash of
// what it presents, then the hashes are compared in constant time.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Db } from "../db/index.ts";

export const HOOKS_PATH = "/api/v1/autopilot-hooks/";

const hashOf = (token: string): string => createHash("sha256").update(token).digest("hex");

/** A new token and the URL that carries it (`base` is the server's origin as the caller reached it). */
export function newHookToken(base: string): { token: string; url: string; hash: string } {
  const token = `aph_${randomBytes(32).toString("base64url")}`;
  return { token, url: `${base}${HOOKS_PATH}${token}`, hash: hashOf(token) };
}

/** Stores the token of the autopilot's trigger `triggerIndex`, replacing the one it had. */
export async function storeHookToken(db: Db, autopilotId: string, triggerIndex: number, hash: string): Promise<void> {
  await dropHookTokens(db, autopilotId, [triggerIndex]);
  await db
    .insertInto("autopilot_hook_tokens")
    .values({ token_hash: hash, autopilot_id: autopilotId, trigger_index: triggerIndex })
    .execute();
}

export async function dropHookTokens(db: Db, autopilotId: string, triggerIndexes: number[]): Promise<void> {
  if (triggerIndexes.length === 0) return;
  await db
    .deleteFrom("autopilot_hook_tokens")
    .where("autopilot_id", "=", autopilotId)
    .where("trigger_index", "in", triggerIndexes)
    .execute();
}

/** The autopilot and trigger a presented token belongs to, or undefined (unknown, rotated, malformed). */
export async function findHook(
  db: Db,
  token: string,
): Promise<{ autopilotId: string; triggerIndex: number } | undefined> {
  if (!/^aph_[\w-]{43}$/.test(token)) return undefined;
  const presented = hashOf(token);
  const row = await db
    .selectFrom("autopilot_hook_tokens")
    .selectAll()
    .where("token_hash", "=", presented)
    .executeTakeFirst();
  if (!row || !timingSafeEqual(Buffer.from(row.token_hash), Buffer.from(presented))) return undefined;
  return { autopilotId: row.autopilot_id, triggerIndex: Number(row.trigger_index) };
}
