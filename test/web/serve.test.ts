// `serve` sends the dashboard: index.html for client routes with a strict CSP and no caching, hashed assets cached
// for a year, and never in place of a server route.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DASHBOARD_CSP } from "../../src/web/index.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";

describe("the dashboard's files", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp("sqlite");
  });
  afterAll(() => t.close());

  it("sends index.html at / and for client routes, with a strict CSP and no-cache", async () => {
    for (const path of ["/", "/w/some-workspace/board", "/w/x/issues/y"]) {
      const response = await fetch(`${t.url}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^text\/html/);
      expect(response.headers.get("cache-control")).toBe("no-cache");
      expect(response.headers.get("content-security-policy")).toBe(DASHBOARD_CSP);
      const html = await response.text();
      expect(html).toContain('<div id="root"></div>');
      // Nothing inline: every script and style comes from a file the CSP allows.
      expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
      expect(html).not.toMatch(/<style|\sstyle=/);
    }
  });

  it("sends hashed assets with a year of immutable caching, gzipped when asked", async () => {
    const html = await (await fetch(`${t.url}/`)).text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    const sheet = /href="(\/assets\/[^"]+\.css)"/.exec(html)?.[1];
    expect(script && sheet).toBeTruthy();
    for (const path of [script!, sheet!]) {
      const response = await fetch(`${t.url}${path}`, { headers: { "accept-encoding": "gzip" } });
      expect(response.status).toBe(200);
      expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect((await response.text()).length).toBeGreaterThan(100);
    }
    expect((await fetch(`${t.url}${script}`)).headers.get("content-type")).toMatch(/^text\/javascript/);
    // A stale tab asking for an asset that no longer exists gets a 404, not HTML to run as a script.
    expect((await fetch(`${t.url}/assets/index-gone.js`)).status).toBe(404);
  });

  it("never shadows a server route: their unknown paths stay the API's JSON 404", async () => {
    const paths = ["/api/v1/nothing-here", "/api", "/mcp/x", "/agui/x", "/docs/nothing", "/metrics/x", "/ready/x"];
    // What remote MCP clients look up after a 401 (OAuth discovery).
    paths.push("/.well-known/oauth-protected-resource", "/.well-known/oauth-authorization-server");
    for (const path of paths) {
      const response = await fetch(`${t.url}${path}`);
      expect(response.status, path).toBe(404);
      expect(await response.json()).toEqual({ detail: "Not Found" });
    }
    expect(await (await fetch(`${t.url}/health`)).json()).toEqual({ status: "ok" });
    expect(await (await fetch(`${t.url}/ready`)).json()).toEqual({ status: "ready" });
    expect((await fetch(`${t.url}/metrics`)).headers.get("content-type")).toMatch(/^text\/plain/);
    expect((await fetch(`${t.url}/openapi.json`)).headers.get("content-type")).toMatch(/json/);
    expect((await fetch(`${t.url}/api/v1/auth/me`)).status).toBe(401);
    // The API docs stay the API docs.
    expect(await (await fetch(`${t.url}/docs`)).text()).not.toContain('<div id="root"></div>');
  });

  it("without a build, / says how to build it instead of failing", async () => {
    const empty = mkdtempSync(join(tmpdir(), "no-dashboard-"));
    const bare = await startTestApp("sqlite", { webDistDir: empty });
    try {
      const response = await fetch(`${bare.url}/w/any/board`);
      expect(response.status).toBe(503);
      expect(await response.text()).toContain("npm run build:web");
      expect((await fetch(`${bare.url}/health`)).status).toBe(200);
    } finally {
      await bare.close();
    }
  });
});
