import { randomUUID } from "node:crypto";
import { sql } from "kysely";

export const newId = (): string => randomUUID();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are UUIDs; anything else cannot name a row, so it is "not found" without asking the database. */
export const isId = (value: string): boolean => UUID.test(value);

let lastMicros = 0;

/**
 * Current UTC time as `2026-11-22T11:13:00.916839`: ISO 8601, no zone suffix, microseconds (the API's shape).
 * Strictly increasing within a process, so rows created in a burst keep their creation order.
 */
export function now(): string {
  const micros = Math.max(Math.floor((performance.timeOrigin + performance.now()) * 1000), lastMicros + 1);
  lastMicros = micros;
  const iso = new Date(Math.floor(micros / 1000)).toISOString().slice(0, 19);
  return `${iso}.${String(micros % 1_000_000).padStart(6, "0")}`;
}

/** `epochMs` in the same shape as `now()` (microseconds zero), e.g. for a time in the future. */
export const timestampAt = (epochMs: number): string => `${new Date(epochMs).toISOString().slice(0, 23)}000`;

declare const jsonOf: unique symbol;

/**
 * Text holding the JSON of a `T`, as a JSON column stores it. The columns are TEXT in both dialects and the drivers
 * return the text unparsed, so the column type stays a string (Kysely's `JSONColumnType` would claim a parsed
 * object); the brand only records what the text holds, so the one writer (`toJson`) and the one reader (`fromJson`)
 * agree on it and a plain string cannot be written by mistake.
 */
export type JsonText<T> = string & { readonly [jsonOf]: T };

export const toJson = <T>(value: T): JsonText<T> => JSON.stringify(value ?? null) as JsonText<T>;

/** The value `text` holds; `fallback` for null or text that is not JSON. */
export function fromJson<T>(text: JsonText<T> | null, fallback: T): T {
  if (text === null) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/**
 * A value written into the SQL text rather than passed as a parameter, for the condition a partial index is defined by
 * (`where status = 'pending'`): statements are prepared (db/index.ts), and once PostgreSQL settles on a prepared
 * statement's generic plan, that plan can use such an index only when the statement's text names the value.
 */
export const indexedValue = <T extends string | number>(value: T) => sql.lit(value);
