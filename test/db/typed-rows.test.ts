// The table types (src/db/schema.ts) as a reader of the code relies on them: a status or kind outside its set, a plain
// string in a JSON column or a 2 in a flag does not compile (`tsc`, part of `npm test`, checks the marked lines), and
// what the types promise is what both databases hand back.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, openDatabase } from "../../src/db/index.ts";
import { migrateToLatest } from "../../src/db/migrate.ts";
import { fromJson, newId, now, toJson } from "../../src/db/values.ts";
import { createTestDatabase, type TestDatabase, testDialects } from "../helpers/databases.ts";

/** Never called (nor executed if it were: nothing runs a query): each marked statement must not compile. */
function writesTheCompilerRefuses(db: Db) {
  // @ts-expect-error "bogus" is no task status
  db.updateTable("tasks").set({ status: "bogus" });
  // @ts-expect-error nor an issue status
  db.updateTable("issues").set({ status: "bogus" });
  // @ts-expect-error nor an issue priority
  db.updateTable("issues").set({ priority: "bogus" });
  // @ts-expect-error a filter on a status outside the set is a typo too
  db.selectFrom("runs").selectAll().where("status", "=", "bogus");
  // @ts-expect-error nor a member role
  db.updateTable("members").set({ role: "superuser" });
  // @ts-expect-error an agent's status
  db.updateTable("agents").set({ status: "busy" });
  // @ts-expect-error nor an actor type
  db.updateTable("issues").set({ assignee_type: "robot" });
  // @ts-expect-error nor a delivery status
  db.updateTable("webhook_deliveries").set({ status: "sent" });
  // @ts-expect-error a JSON column takes toJson's text, not any string
  db.updateTable("agents").set({ tools: '["search"]' });
  // @ts-expect-error and the JSON of what the column holds
  db.updateTable("agents").set({ tools: toJson({ search: true }) });
  // @ts-expect-error a flag is 0 or 1
  db.updateTable("webhooks").set({ enabled: 2 });
}
void writesTheCompilerRefuses;

describe.each(testDialects)("typed rows (%s)", (dialect) => {
  let testDb: TestDatabase;
  let db: Db;
  let close: () => Promise<void>;

  beforeAll(async () => {
    testDb = await createTestDatabase(dialect);
    const handle = openDatabase(testDb.url);
    db = handle.db;
    close = handle.close;
    await migrateToLatest(db);
  });
  afterAll(async () => {
    await close?.();
    await testDb?.drop();
  });

  it("columns with a default may be left out, and read back as the default", async () => {
    const id = newId();
    const at = now();
    await db
      .insertInto("workspaces")
      .values({ id, name: "Defaults", slug: `defaults-${id}`, description: null, created_at: at, updated_at: at })
      .execute();
    const row = await db.selectFrom("workspaces").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ settings: "{}", issue_prefix: "ISS" });
    expect(Number(row.issue_counter)).toBe(0);
    expect(fromJson(row.settings, { unread: true })).toEqual({});
  });

  it("a JSON column reads back as the text written (never parsed by the driver), and a flag as 0 or 1", async () => {
    const workspaceId = newId();
    const at = now();
    await db
      .insertInto("workspaces")
      .values({
        id: workspaceId,
        name: "W",
        slug: `w-${workspaceId}`,
        description: null,
        created_at: at,
        updated_at: at,
      })
      .execute();
    const id = newId();
    await db
      .insertInto("webhooks")
      .values({
        id,
        workspace_id: workspaceId,
        url: "https://example.com/hook",
        types: toJson(["issue.*"]),
        secret: "whsec_test",
        failing_since: null,
        disabled_reason: null,
        created_at: at,
        updated_at: at,
      })
      .execute();
    await db.updateTable("webhooks").set({ enabled: 0 }).where("id", "=", id).execute();
    const hook = await db.selectFrom("webhooks").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    expect(hook.types).toBe('["issue.*"]');
    expect(fromJson(hook.types, [])).toEqual(["issue.*"]);
    expect(Number(hook.enabled)).toBe(0);
  });
});
