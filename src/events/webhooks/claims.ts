// Which due attempts a process claims next, fairly per hook: a hook has at most `perHook` attempts in flight, counted
// over every process sharing the database (one while the hook is failing), each hook's attempts are taken in its own
// order (oldest due first), and the free slots go round the hooks with due attempts, fewest in flight first. So a slow
// or dead receiver holds a few slots, never all, and every other hook's attempts go out beside it.
// Everything is found by index (migration 0011), whatever one hook's backlog: the hooks with pending attempts by a
// skip scan, each hook's first due attempts and its leases by its own index range. Due attempts are always ordered by
// (next_attempt_at, id): only the hook's index gives that order, so PostgreSQL does not walk the global due index
// (next_attempt_at alone) through other hooks' backlogs instead.
import { sql } from "kysely";
import type { Db, SqlDialect } from "../../db/index.ts";
import { indexedValue, now } from "../../db/values.ts";

/** The partial indexes' condition (migration 0011). */
const PENDING = indexedValue("pending" as const);

interface ClaimRequest {
  /** Free slots in this process. */
  room: number;
  perHook: number;
  leaseToken: string;
  leaseExpiresAt: string;
}

interface HookWithWork {
  id: string;
  /** Attempts it may have in flight: `perHook`, or one while it is failing. */
  limit: number;
  /** Attempts it may still start: its limit less its attempts in flight anywhere. */
  quota: number;
  busy: number;
  oldestDue: string;
}

/** Claims up to `room` attempts under `leaseToken`; `more` says some hook still had due attempts when room ran out. */
export async function claimFairly(
  db: Db,
  dialect: SqlDialect,
  request: ClaimRequest,
): Promise<{ ids: string[]; more: boolean }> {
  const at = now();
  const hooks = await hooksWithWork(db, at, request.perHook);
  const { takes, more } = shareOut(hooks, request.room);
  const ids: string[] = [];
  for (const hook of hooks) {
    const take = takes.get(hook.id);
    if (take)
      ids.push(...(await claimForHook(db, dialect, { ...request, at, hook: hook.id, limit: hook.limit, take })));
  }
  return { ids, more };
}

/** The enabled hooks with a due attempt not in flight, and how many more each may start. */
async function hooksWithWork(db: Db, at: string, perHook: number): Promise<HookWithWork[]> {
  const { rows } = await sql<{ id: string; failing_since: string | null; busy: number | string; oldest_due: string }>`
    with recursive pending(webhook_id) as (
      select (select webhook_id from webhook_deliveries where status = 'pending' order by webhook_id limit 1)
      union all
      select (select d.webhook_id from webhook_deliveries d
              where d.status = 'pending' and d.webhook_id > pending.webhook_id order by d.webhook_id limit 1)
      from pending where pending.webhook_id is not null
    ), hooks as (
      select w.id, w.failing_since,
        (select count(*) from webhook_deliveries b
         where b.webhook_id = w.id and b.status = 'pending' and b.lease_token is not null
           and b.lease_expires_at > ${at}) as busy,
        (select d.next_attempt_at from webhook_deliveries d
         where d.webhook_id = w.id and d.status = 'pending' and d.next_attempt_at <= ${at}
           and (d.lease_expires_at is null or d.lease_expires_at <= ${at})
         order by d.next_attempt_at, d.id limit 1) as oldest_due
      from pending join webhooks w on w.id = pending.webhook_id
      where w.enabled = 1
    )
    select * from hooks where oldest_due is not null
  `.execute(db);
  return rows
    .map((row) => {
      const busy = Number(row.busy);
      const limit = row.failing_since === null ? perHook : 1;
      return { id: row.id, limit, busy, quota: limit - busy, oldestDue: row.oldest_due };
    })
    .filter((hook) => hook.quota > 0);
}

/** Round robin: one slot to each hook in turn (fewest in flight, then oldest due, first) until room or quotas end. */
function shareOut(hooks: HookWithWork[], room: number): { takes: Map<string, number>; more: boolean } {
  const order = [...hooks].sort(
    (a, b) => a.busy - b.busy || (a.oldestDue < b.oldestDue ? -1 : a.oldestDue > b.oldestDue ? 1 : 0),
  );
  const takes = new Map<string, number>();
  let left = room;
  for (let round = 0; left > 0; round++) {
    const turn = order.filter((hook) => hook.quota > round);
    if (turn.length === 0) break;
    for (const hook of turn.slice(0, left)) takes.set(hook.id, round + 1);
    left -= Math.min(turn.length, left);
  }
  const more = order.some((hook) => hook.quota > (takes.get(hook.id) ?? 0));
  return { takes, more };
}

/**
 * Leases up to `take` of the hook's due attempts, oldest first. The hook's attempts in flight are counted again in
 * the same statement, and only its first (limit − in flight) due attempts are candidates: two processes claiming for
 * one hook at once compete for the same rows (SKIP LOCKED passes the other's, never the ones after them), so
 * together they never exceed the limit. A candidate leased by a claim that committed meanwhile fails the re-check.
 */
async function claimForHook(db: Db, dialect: SqlDialect, claim: HookClaim): Promise<string[]> {
  const rows = await claimStatement(db, dialect, claim).execute();
  return rows.map((row) => row.id);
}

type HookClaim = ClaimRequest & { at: string; hook: string; limit: number; take: number };

/** claimForHook's statement (its plan is checked in test/events/claim-plans.test.ts). */
export function claimStatement(db: Db, dialect: SqlDialect, claim: HookClaim) {
  const { at, hook } = claim;
  return db
    .updateTable("webhook_deliveries")
    .set({ lease_token: claim.leaseToken, lease_expires_at: claim.leaseExpiresAt })
    .where("id", "in", (eb) => {
      const first = eb
        .selectFrom("webhook_deliveries")
        .select(["id", "next_attempt_at"])
        .where("webhook_id", "=", hook)
        .where("status", "=", PENDING)
        .where("next_attempt_at", "<=", at)
        .where((inner) => inner.or([inner("lease_expires_at", "is", null), inner("lease_expires_at", "<=", at)]))
        .orderBy("next_attempt_at")
        .orderBy("id")
        .limit(claim.limit)
        .as("first");
      const inFlight = eb
        .selectFrom("webhook_deliveries as b")
        .select((count) => count.fn.countAll<number>().as("busy"))
        .where("b.webhook_id", "=", hook)
        .where("b.status", "=", PENDING)
        .where("b.lease_token", "is not", null)
        .where("b.lease_expires_at", ">", at);
      const candidates = eb
        .selectFrom(
          eb
            .selectFrom(first)
            .select((inner) => [
              "first.id",
              inner.fn
                .agg<number>("row_number")
                .over((over) => over.orderBy("first.next_attempt_at").orderBy("first.id"))
                .as("place"),
            ])
            .as("ranked"),
        )
        .select("ranked.id")
        .where("ranked.place", "<=", claim.take)
        .where((inner) => inner(inner("ranked.place", "+", inFlight), "<=", claim.limit));
      const locked = eb
        .selectFrom("webhook_deliveries")
        .select("id")
        .where("id", "in", candidates)
        .where("status", "=", PENDING)
        .where((inner) => inner.or([inner("lease_expires_at", "is", null), inner("lease_expires_at", "<=", at)]));
      // Other processes' claims are passed by, not waited for.
      return dialect === "postgres" ? locked.forUpdate().skipLocked() : locked;
    })
    .returning("id");
}
