// Pages a list endpoint to its end the way the seed says a client does: a page shorter than `limit` is the last.
import { expect } from "vitest";
import type { ApiClient, RequestOptions } from "./app.ts";

export const PAGE_LIMITS = [1, 2, 50, 200] as const;

/** Every item of the list, in order, fetched `limit` at a time; checks that no page exceeds `expectedPageSize`. */
export async function pageThrough<T = any>(
  api: ApiClient,
  path: string,
  limit: number,
  options: RequestOptions,
  expectedPageSize = Math.min(limit, 200),
): Promise<T[]> {
  const items: T[] = [];
  const separator = path.includes("?") ? "&" : "?";
  for (let offset = 0; ; offset += expectedPageSize) {
    const page = await api.get<T[]>(`${path}${separator}limit=${limit}&offset=${offset}`, options);
    expect(page.status).toBe(200);
    expect(Array.isArray(page.body)).toBe(true);
    expect(page.body.length).toBeLessThanOrEqual(expectedPageSize);
    items.push(...page.body);
    if (page.body.length < expectedPageSize) return items;
  }
}
