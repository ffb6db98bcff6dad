// Issue list pages as JSON text, kept under the workspace's issue list version: a page is served from memory until
// something bumps the version (see list-version.ts). The version is read from the database before the page, so a
// cached page is never older than the version it is stored under, whichever instance made the change.
// The cache is bounded in bytes, not pages: any member can make pages of megabytes (long descriptions, many distinct
// searches), and a bound in pages would let them grow the process by gigabytes.

interface IssuePageCacheLimits {
  /** Bytes all cached pages (and their keys) may take together. */
  maxBytes: number;
  /** A page larger than this is never cached: it would push out many small ones and is cheap to rebuild by comparison. */
  maxPageBytes: number;
}

const DEFAULT_ISSUE_PAGE_CACHE_LIMITS: IssuePageCacheLimits = {
  maxBytes: 32 * 1024 * 1024,
  maxPageBytes: 1024 * 1024,
};

interface CachedPage {
  version: number;
  json: string;
  bytes: number;
}

/** A JavaScript string takes at most two bytes per UTF-16 code unit; counted so, the bound holds for any text. */
const stringBytes = (text: string) => text.length * 2;

export class IssuePageCache {
  private readonly pages = new Map<string, CachedPage>();
  private totalBytes = 0;

  constructor(private readonly limits: IssuePageCacheLimits = DEFAULT_ISSUE_PAGE_CACHE_LIMITS) {}

  /** Bytes the cached pages and their keys take now (never above `maxBytes`). */
  get bytes(): number {
    return this.totalBytes;
  }

  get pageCount(): number {
    return this.pages.size;
  }

  get(key: string, version: number): string | undefined {
    const page = this.pages.get(key);
    if (!page) return undefined;
    if (page.version !== version) {
      this.remove(key, page);
      return undefined;
    }
    // Re-inserted so that the least recently used page is the first one in the map.
    this.pages.delete(key);
    this.pages.set(key, page);
    return page.json;
  }

  set(key: string, version: number, json: string): void {
    const previous = this.pages.get(key);
    if (previous) this.remove(key, previous);
    const bytes = stringBytes(key) + stringBytes(json);
    if (bytes > this.limits.maxPageBytes || bytes > this.limits.maxBytes) return;
    while (this.totalBytes + bytes > this.limits.maxBytes) {
      const [oldestKey, oldest] = this.pages.entries().next().value as [string, CachedPage];
      this.remove(oldestKey, oldest);
    }
    this.pages.set(key, { version, json, bytes });
    this.totalBytes += bytes;
  }

  private remove(key: string, page: CachedPage): void {
    this.pages.delete(key);
    this.totalBytes -= page.bytes;
  }
}
