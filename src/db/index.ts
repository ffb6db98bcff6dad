// The database handle: a Kysely instance over an embedded SQLite file or a PostgreSQL pool,
// chosen by DATABASE_URL. Every query in the service goes through Kysely so both stay one code path.
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import SqliteDatabase from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import pg from "pg";
import type { Database } from "./schema.ts";

export type Dialect = "sqlite" | "postgres";
export type Db = Kysely<Database>;

export interface DatabaseHandle {
  db: Db;
  dialect: Dialect;
  /** Where the data lives, for the startup line: a file path, or the PostgreSQL URL without its password. */
  location: string;
  close(): Promise<void>;
}

export function openDatabase(url: string): DatabaseHandle {
  if (/^postgres(ql)?:\/\//.test(url)) return openPostgres(url);
  return openSqlite(url.replace(/^(sqlite|file):(\/\/)?/, ""));
}

function openSqlite(path: string): DatabaseHandle {
  const file = path === ":memory:" ? path : resolve(path);
  if (file !== ":memory:") mkdirSync(dirname(file), { recursive: true });
  const sqlite = new SqliteDatabase(file);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  return { db, dialect: "sqlite", location: file, close: () => db.destroy() };
}

function openPostgres(url: string): DatabaseHandle {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  // An idle client that loses its server must not crash the process; the next query reports the error.
  pool.on("error", () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const location = url.replace(/\/\/([^:/@]+):[^@]*@/, "//$1:***@");
  return { db, dialect: "postgres", location, close: () => db.destroy() };
}

const UNIQUE_CODES = new Set(["23505", "SQLITE_CONSTRAINT_UNIQUE", "SQLITE_CONSTRAINT_PRIMARYKEY"]);
const FOREIGN_KEY_CODES = new Set(["23503", "SQLITE_CONSTRAINT_FOREIGNKEY"]);

function errorCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined;
}

export function isUniqueViolation(error: unknown): boolean {
  return UNIQUE_CODES.has(errorCode(error) ?? "");
}

export function isForeignKeyViolation(error: unknown): boolean {
  return FOREIGN_KEY_CODES.has(errorCode(error) ?? "");
}
