// Work a transaction does at its very end, just before COMMIT. The outbox writes a transaction's activity entries and
// events there, all in one statement: the workspace's event counter (a row lock held until commit) is then held for
// one round trip, not from the transaction's first entry on.
import { Kysely, type Transaction, TransactionBuilder } from "kysely";

type Hook = () => Promise<void>;

const hooksOf = new WeakMap<object, Hook[]>();

/** Kysely whose transactions run their before-commit hooks once their callback has returned (not on rollback). */
export class KyselyWithCommitHooks<DB> extends Kysely<DB> {
  override transaction(): TransactionBuilder<DB> {
    return withHooks(super.transaction());
  }
}

function withHooks<DB>(builder: TransactionBuilder<DB>): TransactionBuilder<DB> {
  return new Proxy(builder, {
    get(target, property) {
      if (property === "execute") {
        return <T>(callback: (trx: Transaction<DB>) => Promise<T>) =>
          target.execute(async (trx) => {
            const hooks: Hook[] = [];
            hooksOf.set(trx, hooks);
            const result = await callback(trx);
            for (let hook = hooks.shift(); hook; hook = hooks.shift()) await hook();
            return result;
          });
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
  hooks.push(hook);
  return true;
}
