// The one mechanism by which processes wake each other (events and work both use it): a signal sent in a transaction
// is heard once it commits and never if it rolls back; on PostgreSQL a listening connection that is killed comes
// back, says signals may have been missed, and hears again, without taking the process down.
import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase } from "../../src/db/index.ts";
import { openSignals, type Signals, sendSignal } from "../../src/db/signals.ts";
import { createTestDatabase, type TestDatabase, testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";

const quiet = { warn() {} };

describe.each(testDialects)("signals between processes (%s)", (dialect) => {
  const channel = `test_signal_${randomBytes(4).toString("hex")}`;
  const other = `${channel}_other`;
  let database: TestDatabase;
  let opened: DatabaseHandle;
  let signals: Signals;
  const heard: string[] = [];
  const resyncs: number[] = [];
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    opened = openDatabase(database.url);
    signals = openSignals(dialect, database.url, [channel, other], quiet);
    await signals.ready;
    signals.on(channel, (payload) => heard.push(payload));
    signals.onResync(() => resyncs.push(resyncs.length));
  });
  afterAll(async () => {
    await signals.close();
    await opened.close();
    await database.drop();
  });

  it("a signal is heard on its channel once its transaction commits, and never when it rolls back", async () => {
    const db = opened.db;
    await db
      .transaction()
      .execute(async (trx) => {
        await sendSignal(trx, channel, "rolled back");
        throw new Error("undo");
      })
      .catch(() => {});
    const otherHeard: string[] = [];
    const stop = signals.on(other, (payload) => otherHeard.push(payload));
    await db.transaction().execute(async (trx) => {
      await sendSignal(trx, other, "elsewhere");
      await sendSignal(trx, channel, "committed");
    });
    await eventually(() => heard.includes("committed"), "the committed signal");
    await eventually(() => otherHeard.includes("elsewhere"), "the other channel's signal");
    stop();
    expect(heard).toEqual(["committed"]);
    expect(otherHeard).toEqual(["elsewhere"]);
  });

  it.runIf(dialect === "postgres")("a killed listening connection comes back: resync, then signals again", async () => {
    const db = opened.db;
    const killed = await sql<{ killed: boolean }>`select pg_terminate_backend(pid) as killed from pg_stat_activity
      where datname = current_database() and query like ${`LISTEN ${channel}%`}`.execute(db);
    expect(killed.rows).toEqual([{ killed: true }]);
    await eventually(() => resyncs.length > 0, "the resync after the reconnect");
    await sendSignal(db, channel, "after the reconnect");
    await eventually(() => heard.includes("after the reconnect"), "a signal after the reconnect");
  });
});
