// Issue list pages as JSON text, kept under the workspace's issue list version: a page is served from memory until
// something bumps the version (see list-version.ts). The version is read from the database before the page, so a
// cached page is never older than the version it is stored under, whichever instance made the change.

const MAX_PAGES = 500;

interface CachedPage {
  version: number;
  json: string;
}

export class IssuePageCache {
  private readonly pages = new Map<string, CachedPage>();

  get(key: string, version: number): string | undefined {
    const page = this.pages.get(key);
    if (!page) return undefined;
    if (page.version !== version) {
      this.pages.delete(key);
      return undefined;
    }
    // Re-inserted so that the least recently used page is the first one in the map.
    this.pages.delete(key);
    this.pages.set(key, page);
    return page.json;
  }

  set(key: string, version: number, json: string): void {
    if (this.pages.size >= MAX_PAGES) this.pages.delete(this.pages.keys().next().value as string);
    this.pages.set(key, { version, json });
  }
}
