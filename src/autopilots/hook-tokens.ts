// Webhook trigger tokens: shown once (in the URL), stored only as their sha256. A call is looked up by the hash of
// what it presents, then the hashes are compared in constant time.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { sql } from "kysely";
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

/** What fires an autopilot's webhook trigger `triggerIndex` under an Idempotency-Key: unique per autopilot. */
export const hookClaimKey = (triggerIndex: number, key: string): string => `webhook:${triggerIndex}:${key}`;

export interface Hook {
  autopilotId: string;
  triggerIndex: number;
  workspaceId: string;
  /** The run that holds the claim of the call's Idempotency-Key already, if one does, and when it was made. */
  claimed: { runId: string; at: string } | null;
}

/**
 * The autopilot and trigger a presented token belongs to, or undefined (unknown, rotated, malformed, or its autopilot
 * gone), with the run that claimed `idempotencyKey` already: one query for what a call needs before it fires.
 */
export async function findHook(db: Db, token: string, idempotencyKey: string | undefined): Promise<Hook | undefined> {
  if (!/^aph_[\w-]{43}$/.test(token)) return undefined;
  const presented = hashOf(token);
  const row = await db
    .selectFrom("autopilot_hook_tokens as t")
    .innerJoin("autopilots as a", "a.id", "t.autopilot_id")
    .leftJoin("autopilot_runs as r", (join) =>
      join
        .onRef("r.autopilot_id", "=", "a.id")
        // hookClaimKey in SQL. Without a key nothing is claimed: no claim is ever "".
        .on(
          "r.claim_key",
          "=",
          idempotencyKey === undefined
            ? sql.lit("")
            : sql<string>`${"webhook:"} || t.trigger_index || ${`:${idempotencyKey}`}`,
        ),
    )
    .select([
      "t.token_hash",
      "t.autopilot_id",
      "t.trigger_index",
      "a.workspace_id",
      "r.id as claimed_run_id",
      "r.created_at as claimed_at",
    ])
    .where("t.token_hash", "=", presented)
    .executeTakeFirst();
  if (!row || !timingSafeEqual(Buffer.from(row.token_hash), Buffer.from(presented))) return undefined;
  return {
    autopilotId: row.autopilot_id,
    triggerIndex: Number(row.trigger_index),
    workspaceId: row.workspace_id,
    claimed: row.claimed_run_id === null ? null : { runId: row.claimed_run_id, at: String(row.claimed_at) },
  };
}
