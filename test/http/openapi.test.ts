// The served OpenAPI document is one a client generator can trust: `redocly lint` finds no error, and the parts a
// generated client depends on (operation ids, credentials, error shapes, empty 204s, streams) are there.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.ts";

const root = new URL("../../", import.meta.url).pathname;
const METHODS = ["get", "post", "patch", "put", "delete"];

interface Operation {
  operationId?: string;
  security?: unknown[];
  requestBody?: { content: Record<string, unknown> };
  responses: Record<string, { content?: Record<string, { schema: { $ref?: string } }> }>;
}

describe("GET /openapi.json", () => {
  let t: TestApp;
  let document: {
    servers?: { url: string }[];
    paths: Record<string, Record<string, Operation>>;
    components: { securitySchemes: Record<string, { type: string; in?: string; name?: string }> };
  };
  const dir = mkdtempSync(join(tmpdir(), "openapi-"));
  const operations = () =>
    Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => METHODS.includes(method))
        .map(([method, operation]) => ({ path, method, operation })),
    );
  const operation = (method: string, path: string) => document.paths[path]?.[method] as Operation;

  beforeAll(async () => {
    t = await startTestApp("sqlite");
    document = (await t.api.request("GET", "/openapi.json")).body;
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("passes redocly lint with no error", async () => {
    const file = join(dir, "openapi.json");
    writeFileSync(file, JSON.stringify(document));
    const lint = await promisify(execFile)(
      process.execPath,
      [
        join(root, "node_modules/@redocly/cli/bin/cli.js"),
        "lint",
        file,
        "--config",
        join(root, "redocly.yaml"),
        "--format=json",
      ],
      { env: { ...process.env, REDOCLY_TELEMETRY: "off" }, maxBuffer: 16 * 1024 * 1024 },
    ).catch((error: { stdout: string }) => error); // redocly exits 1 when it finds an error: read its report anyway
    const report = JSON.parse(lint.stdout) as { totals: { errors: number }; problems: { severity: string }[] };
    const errors = report.problems.filter((problem) => problem.severity === "error");
    expect(errors).toEqual([]);
    expect(report.totals.errors).toBe(0);
  }, 60_000);

  it("names every operation and documents both credentials, and which routes need none", () => {
    const ids = operations().map(({ operation }) => operation.operationId);
    expect(ids.every((id) => typeof id === "string" && id !== "")).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(document.servers?.length).toBeGreaterThan(0);
    expect(document.components.securitySchemes.apiKey).toEqual(
      expect.objectContaining({ type: "apiKey", in: "header", name: "X-API-Key" }),
    );
    expect(document.components.securitySchemes.bearer?.type).toBe("http");
    for (const path of ["/api/v1/auth/register", "/api/v1/auth/login"]) {
      expect(operation("post", path).security).toEqual([]);
    }
    expect(operation("get", "/health").security).toEqual([]);
    expect(Object.keys(operation("get", "/health").responses)).toEqual(["200"]);
  });

  it("documents error responses as {detail} or the 422 list, and a 204 with no body", () => {
    const deletes = operations().filter(({ method, path }) => method === "delete" && path.startsWith("/api/v1"));
    expect(deletes.length).toBeGreaterThan(10);
    for (const { operation: deletion } of deletes) {
      expect(deletion.responses["204"], JSON.stringify(deletion)).toEqual({ description: expect.any(String) });
    }
    const issues = operation("post", "/api/v1/workspaces/{ws_id}/issues/");
    expect(issues.responses["401"]?.content?.["application/json"]?.schema.$ref).toBe("#/components/schemas/Error");
    expect(issues.responses["403"]?.content?.["application/json"]?.schema.$ref).toBe("#/components/schemas/Error");
    expect(issues.responses["422"]?.content?.["application/json"]?.schema.$ref).toBe(
      "#/components/schemas/HTTPValidationError",
    );
    const issue = operation("get", "/api/v1/workspaces/{ws_id}/issues/{issue_id}");
    expect(issue.responses["404"]?.content?.["application/json"]?.schema.$ref).toBe("#/components/schemas/Error");
  });

  it("documents the bodies and event streams of the agent UI and the tool protocol", () => {
    for (const [method, path] of [
      ["post", "/agui"],
      ["post", "/mcp"],
      ["post", "/messages/"],
    ] as const) {
      expect(operation(method, path).requestBody?.content["application/json"], path).toBeDefined();
    }
    for (const [method, path] of [
      ["post", "/agui"],
      ["get", "/sse"],
      ["get", "/api/v1/workspaces/{ws_id}/events/stream"],
      ["get", "/api/v1/workspaces/{ws_id}/runs/{run_id}/events"],
    ] as const) {
      expect(operation(method, path).responses["200"]?.content?.["text/event-stream"], path).toBeDefined();
    }
  });
});
