// A webhook claim must find a hook's due attempts by the partial index on pending attempts, also once PostgreSQL has
// settled on the prepared statement's generic plan (db/index.ts prepares every statement): a plan that cannot use it
// walks every attempt the hook ever had, and a backlog drains at a third of the speed.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/index.ts";
import { migrateToLatest } from "../../src/db/migrate.ts";
import { claimStatement } from "../../src/events/webhooks/claims.ts";
import { createTestDatabase, type TestDatabase, testDialects } from "../helpers/databases.ts";

describe.runIf(testDialects.includes("postgres"))("webhook claim plans (PostgreSQL)", () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase("postgres");
    const { db, close } = openDatabase(database.url);
    await migrateToLatest(db);
    await close();
  });
  afterAll(() => database?.drop());

  it("uses the pending attempts' index in the generic plan of the prepared claim", async () => {
    const { db, close } = openDatabase(database.url);
    const at = "2026-11-27T12:00:00.000000";
    const statement = claimStatement(db, "postgres", {
      room: 16,
      perHook: 16,
      leaseToken: "lease",
      leaseExpiresAt: at,
      at,
      hook: "hook",
      limit: 16,
      take: 16,
    }).compile();
    await close();

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query("set plan_cache_mode = force_generic_plan");
      await client.query(`prepare claim as ${statement.sql}`);
      const values = statement.parameters
        .map((value) => (typeof value === "number" ? String(value) : client.escapeLiteral(String(value))))
        .join(", ");
      const { rows } = await client.query(`explain (format json) execute claim(${values})`);
      const plan = JSON.stringify(rows[0]["QUERY PLAN"]);
      expect(plan).toContain('"Index Name":"webhook_deliveries_pending_hook_idx"');
      expect(plan).toContain('"Index Name":"webhook_deliveries_leased_idx"');
    } finally {
      await client.end();
    }
  });
});
