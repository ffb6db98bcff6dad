// The issue list's page cache is bounded in bytes: a member asking for many distinct pages of huge issues must not
// grow the process without bound.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listIssues } from "../../src/platform/issues/list.ts";
import { IssuePageCache } from "../../src/platform/issues/page-cache.ts";
import { createWorkspaceWithRoles, startTestApp, type TestApp } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";

describe("issue page cache eviction", () => {
  // Each entry below takes (1 + 19) characters, two bytes each: 40 bytes.
  const page = (letter: string) => `[${letter.repeat(17)}]`;

  it("evicts the least recently used pages once the byte bound is reached", () => {
    const cache = new IssuePageCache({ maxBytes: 100, maxPageBytes: 100 });
    cache.set("a", 1, page("a"));
    cache.set("b", 1, page("b"));
    expect(cache.bytes).toBe(80);
    expect(cache.get("a", 1)).toBe(page("a"));
    cache.set("c", 1, page("c"));
    expect(cache.bytes).toBe(80);
    expect(cache.get("b", 1)).toBeUndefined();
    expect(cache.get("a", 1)).toBe(page("a"));
    expect(cache.get("c", 1)).toBe(page("c"));
  });

  it("never keeps a page larger than the page bound, and counts a replaced or stale page once", () => {
    const cache = new IssuePageCache({ maxBytes: 1000, maxPageBytes: 50 });
    cache.set("big", 1, "x".repeat(30));
    expect(cache.get("big", 1)).toBeUndefined();
    expect(cache.bytes).toBe(0);
    cache.set("a", 1, page("a"));
    cache.set("a", 2, page("b"));
    expect(cache.bytes).toBe(40);
    expect(cache.get("a", 3)).toBeUndefined();
    expect(cache.bytes).toBe(0);
    expect(cache.pageCount).toBe(0);
  });
});

describe.each(testDialects)("issue page cache under many large pages (%s)", (dialect) => {
  const limits = { maxBytes: 1024 * 1024, maxPageBytes: 256 * 1024 };
  const cache = new IssuePageCache(limits);
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(dialect, { issuePageCache: cache });
  });
  afterAll(() => t.close());

  it("stays within its byte bound while every page served is still right", async () => {
    const { workspaceId, owner } = await createWorkspaceWithRoles(t.api);
    const ws = `workspaces/${workspaceId}`;
    const token = owner.token;
    for (let index = 0; index < 12; index++) {
      const created = await t.api.post(
        `${ws}/issues/`,
        { title: `Huge ${index}`, description: `${index} ${"x".repeat(20_000)}` },
        { token },
      );
      expect(created.status).toBe(201);
    }
    // 20 distinct searches of 5 huge issues (~200 KB each, 4 MB in all), then pages of all 12 (~480 KB, over the
    // page bound), asked twice so a cached copy would be served the second time.
    const views = [
      ...Array.from({ length: 20 }, (_, index) => ({ q: "x".repeat(index + 1), limit: 5, offset: index % 8 })),
      ...Array.from({ length: 3 }, (_, index) => ({ q: "x".repeat(index + 1), limit: 200, offset: 0 })),
    ];
    for (const round of [1, 2]) {
      for (const view of views) {
        const listed = await t.api.get(`${ws}/issues/?q=${view.q}&limit=${view.limit}&offset=${view.offset}`, {
          token,
        });
        expect(listed.status).toBe(200);
        const truth = await listIssues(t.db, workspaceId, view);
        expect(listed.body, `round ${round} ${JSON.stringify(view)}`).toEqual(JSON.parse(JSON.stringify(truth)));
        expect(cache.bytes).toBeLessThanOrEqual(limits.maxBytes);
      }
    }
    expect(cache.pageCount).toBeGreaterThan(0);
    expect(cache.pageCount).toBeLessThan(views.length);
  });
});
