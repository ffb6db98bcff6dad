// Work a transaction does at its very end, just before COMMIT, and what it announces once committed. The outbox
// writes a transaction's activity entries and events before commit, all in one statement: the workspace's event
// counter (a row lock held until commit) is then held for one round trip, not from the transaction's first entry on.
// After commit, SQLite's in-process signals go out (PostgreSQL's NOTIFYs are delivered at commit by the database).
import { Kysely, type Transaction, TransactionBuilder } from "kysely";

type Hook = () => Promise<void>;
type AfterHook = () => void;

interface Hooks {
  before: Hook[];
  after: AfterHook[];
}

const hooksOf = new WeakMap<object, Hooks>();

/**
 * Kysely whose transactions run their before-commit hooks once their callback has returned, and their after-commit
 * hooks once COMMIT has succeeded (neither on rollback).
 */
export class KyselyWithCommitHooks<DB> extends Kysely<DB> {
  override transaction(): TransactionBuilder<DB> {
    return withHooks(super.transaction());
  }
}

function withHooks<DB>(builder: TransactionBuilder<DB>): TransactionBuilder<DB> {
  return new Proxy(builder, {
    get(target, property) {
      if (property === "execute") {
        return async <T>(callback: (trx: Transaction<DB>) => Promise<T>) => {
          const hooks: Hooks = { before: [], after: [] };
          const result = await target.execute(async (trx) => {
            hooksOf.set(trx, hooks);
            const value = await callback(trx);
            for (let hook = hooks.before.shift(); hook; hook = hooks.before.shift()) await hook();
            return value;
          });
          for (const hook of hooks.after) hook();
          return result;
        };
      }
      const value: unknown = Reflect.get(target, property);
      if (typeof value !== "function") return value;
      // setIsolationLevel() and the like return a new builder: it keeps the hooks too.
      return (...args: unknown[]) => {
        const returned: unknown = value.apply(target, args);
        return returned instanceof TransactionBuilder ? withHooks(returned as TransactionBuilder<DB>) : returned;
      };
    },
  });
}

/**
 * Runs `hook` inside `trx` after the transaction's own work, just before it commits. Returns false, and registers
 * nothing, when `trx` is not a transaction opened by KyselyWithCommitHooks (the caller then does the work at once).
 */
export function beforeCommit(trx: object, hook: Hook): boolean {
  const hooks = hooksOf.get(trx);
  if (!hooks) return false;
  hooks.before.push(hook);
  return true;
}

/**
 * Runs `hook` once `trx` has committed, never if it rolls back; hooks run in the order registered, synchronously, so
 * they must not throw. Returns false, and registers nothing, when `trx` is not a transaction opened by
 * KyselyWithCommitHooks.
 */
export function afterCommit(trx: object, hook: AfterHook): boolean {
  const hooks = hooksOf.get(trx);
  if (!hooks) return false;
  hooks.after.push(hook);
  return true;
}
