// Building blocks for request schemas and lookups that must never reach the database as bad input.
import { z } from "zod";

/**
 * A string the database can store: at most `max` characters and no NUL, which PostgreSQL refuses in text
 * (so it is a 422 here rather than a 500 there).
 */
export const text = (max: number) =>
  z
    .string()
    .max(max)
    .refine((value) => !value.includes("\u0000"), { message: "Must not contain NUL characters" });

/** A required, non-blank name. */
export const name = (max = 200) => text(max).trim().min(1);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are UUIDs; anything else names no row, so it is "not found" without asking the database. */
export const isId = (value: string): boolean => UUID.test(value);
