// Browsers on an allowed origin may use every method the API has; other origins get no CORS permission at all.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.ts";

const preflight = (url: string, origin: string, method: string) =>
  fetch(url, {
    method: "OPTIONS",
    headers: { origin, "access-control-request-method": method, "access-control-request-headers": "authorization" },
  });

describe("CORS on a server listening on loopback", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp("sqlite");
  });
  afterAll(() => t.close());

  it("a page served from a loopback name may PATCH and DELETE, with its credentials", async () => {
    for (const method of ["PATCH", "DELETE", "POST", "GET"]) {
      const response = await preflight(`${t.url}/api/v1/workspaces/some-id`, "http://localhost:5173", method);
      expect(response.status).toBe(204);
      expect(response.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
      expect(response.headers.get("access-control-allow-methods")?.split(/,\s*/)).toContain(method);
      expect(response.headers.get("access-control-allow-headers")).toBe("authorization");
    }
  });

  it("a page from any other origin gets no allow headers, so the browser refuses the request", async () => {
    for (const method of ["PATCH", "DELETE"]) {
      const response = await preflight(`${t.url}/api/v1/workspaces/some-id`, "https://evil.example", method);
      expect(response.headers.get("access-control-allow-origin")).toBeNull();
      expect(response.headers.get("access-control-allow-methods")).toBeNull();
      expect(response.headers.get("access-control-allow-headers")).toBeNull();
    }
  });
});
