// Throwaway databases for tests: a fresh SQLite file, or a fresh PostgreSQL database created on the
// server named by TEST_DATABASE_URL and dropped afterwards.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { SqlDialect } from "../../src/db/index.ts";

const postgresAdminUrl = process.env.TEST_DATABASE_URL;

/** The dialects this run covers: SQLite always, PostgreSQL when TEST_DATABASE_URL is set (CI sets it). */
export const testDialects: SqlDialect[] = postgresAdminUrl ? ["sqlite", "postgres"] : ["sqlite"];

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(dialect: SqlDialect): Promise<TestDatabase> {
  if (dialect === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "agent-platform-test-"));
    return { url: `sqlite:${join(dir, "test.db")}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  if (!postgresAdminUrl) throw new Error("TEST_DATABASE_URL is not set");
  const name = `ap_test_${randomBytes(6).toString("hex")}`;
  await withAdminClient((client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(postgresAdminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await withAdminClient((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

async function withAdminClient<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: postgresAdminUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
