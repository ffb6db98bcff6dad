// Real refusals of both databases (a taken unique value, a missing referenced row, a value the column cannot hold)
// become the documented 4xx with a message of ours: the raw text (`datatype mismatch`, `bigint out of range`,
// constraint names) never reaches a caller, whether it came through HTTP or a tool.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, openDatabase } from "../../src/db/index.ts";
import { migrateToLatest } from "../../src/db/migrate.ts";
import { newId, now, toJson } from "../../src/db/values.ts";
import { fromDatabaseError, HttpError, ValidationError } from "../../src/http/errors.ts";
import { createTestDatabase, type TestDatabase, testDialects } from "../helpers/databases.ts";

async function refusalOf(work: Promise<unknown>): Promise<unknown> {
  try {
    await work;
  } catch (error) {
    return error;
  }
  throw new Error("the database accepted it");
}

describe.each(testDialects)("database refusals (%s)", (dialect) => {
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

  const workspace = (slug: string) => ({
    id: newId(),
    name: "W",
    slug,
    description: null,
    settings: toJson({}),
    issue_prefix: "ISS",
    issue_counter: 0,
    issue_list_version: 0,
    created_at: now(),
    updated_at: now(),
  });

  it("a taken unique value is 409", async () => {
    await db.insertInto("workspaces").values(workspace("taken")).execute();
    const error = await refusalOf(db.insertInto("workspaces").values(workspace("taken")).execute());
    expect(fromDatabaseError(error)).toMatchObject({ statusCode: 409, detail: "Already exists" });
  });

  it("a row pointing at a missing one is 404", async () => {
    const label = { id: newId(), workspace_id: newId(), name: "x", color: "#000000", created_at: now() };
    const error = await refusalOf(db.insertInto("labels").values(label).execute());
    const mapped = fromDatabaseError(error);
    expect(mapped).toBeInstanceOf(HttpError);
    expect(mapped).toMatchObject({ statusCode: 404, detail: "A referenced resource was not found" });
  });

  it("an offset the database cannot hold is 422 without the database's words", async () => {
    const error = await refusalOf(db.selectFrom("issues").select("id").limit(50).offset(1e20).execute());
    expect(String(error)).toMatch(/datatype mismatch|out of range/);
    const mapped = fromDatabaseError(error);
    expect(mapped).toBeInstanceOf(ValidationError);
    expect(mapped).toMatchObject({ statusCode: 422 });
    expect(JSON.stringify((mapped as ValidationError).issues)).not.toMatch(/datatype|bigint|range for type/);
  });

  it("anything else is not the caller's doing and stays a 500", async () => {
    const error = await refusalOf(
      db
        .selectFrom("no_such_table" as "issues")
        .selectAll()
        .execute(),
    );
    expect(fromDatabaseError(error)).toBeUndefined();
  });
});
