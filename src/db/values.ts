import { randomUUID } from "node:crypto";

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

/** `ms` milliseconds from now, in the same shape as `now()` (so the two compare as text). */
export function nowPlus(ms: number): string {
  return `${new Date(Date.now() + ms).toISOString().slice(0, 23)}000`;
}

export const toJson = (value: unknown): string => JSON.stringify(value ?? null);

export function fromJson<T>(text: string | null, fallback: T): T {
  if (text === null) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}
