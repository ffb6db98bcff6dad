// Counts the SQL statements this process sends whose text matches, at the drivers (better-sqlite3's statements,
// pg's client), passing each call through unchanged: for tests that a wait does not keep querying.
import SqliteDatabase from "better-sqlite3";
import pg from "pg";

type Method = (...args: unknown[]) => unknown;

/** Starts counting; `stop()` puts the drivers back and returns the count. */
export function countStatements(matching: RegExp): { stop: () => number } {
  let count = 0;
  const seen = (text: unknown) => {
    if (typeof text === "string" && matching.test(text)) count++;
  };
  const restore: (() => void)[] = [];
  const wrap = (target: Record<string, unknown>, method: string, textOf: (self: any, args: unknown[]) => unknown) => {
    const original = target[method] as Method;
    target[method] = function (this: unknown, ...args: unknown[]) {
      seen(textOf(this, args));
      return original.apply(this, args);
    };
    restore.push(() => {
      target[method] = original;
    });
  };
  const probe = new SqliteDatabase(":memory:");
  const statement = Object.getPrototypeOf(probe.prepare("select 1")) as Record<string, unknown>;
  probe.close();
  for (const method of ["run", "get", "all", "iterate"]) wrap(statement, method, (self) => self.source);
  wrap(pg.Client.prototype as unknown as Record<string, unknown>, "query", (_, [first]) =>
    typeof first === "string" ? first : (first as { text?: string } | undefined)?.text,
  );
  return {
    stop: () => {
      for (const undo of restore) undo();
      return count;
    },
  };
}
