// Serves the dashboard (web/dist) at `/`: hashed assets cached for a year, index.html revalidated every time and
// sent for every client route, a strict Content-Security-Policy on the pages. Server routes (/api, /mcp, /agui…)
// are never shadowed: an unknown path under them is the API's JSON 404, not the dashboard.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { distState } from "./dist-state.ts";

export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  // A call recording plays from an object URL: it is fetched with the Authorization header, never a token in a URL.
  "media-src 'self' blob:",
  "object-src 'none'",
  // index.html's own <base href="/"> (same origin), which keeps the base URL fixed while the query changes.
  "base-uri 'self'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join("; ");

/** First path segments that belong to the server, never to a client route. */
const SERVER_PREFIXES = new Set([
  "api",
  "mcp",
  "sse",
  "messages",
  "agui",
  "status",
  "health",
  "ready",
  "metrics",
  "docs",
  "openapi.json",
  "media-stream",
  // OAuth discovery: remote MCP clients (mcp-remote) read these after a 401 and must get JSON, not the page.
  ".well-known",
  "register",
]);

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
};

interface StaticFile {
  body: Buffer;
  gzipped: Buffer | undefined;
  type: string;
  immutable: boolean;
}

interface WebOptions {
  /** The built dashboard; missing is fine (the server says how to build it). */
  distDir: string;
}

export const DEFAULT_DIST_DIR = fileURLToPath(new URL("../../web/dist", import.meta.url));

/** Reads the built files once: they change only with a new build, which comes with a restart. */
function loadFiles(distDir: string): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  const walk = (dir: string, prefix: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const urlPath = `${prefix}/${name}`;
      if (statSync(path).isDirectory()) {
        walk(path, urlPath);
        continue;
      }
      const body = readFileSync(path);
      const type = TYPES[extname(name)] ?? "application/octet-stream";
      const compressible = /^(text\/|application\/json|image\/svg)/.test(type) && body.length > 1024;
      files.set(urlPath, {
        body,
        gzipped: compressible ? gzipSync(body) : undefined,
        type,
        immutable: urlPath.startsWith("/assets/"),
      });
    }
  };
  if (existsSync(join(distDir, "index.html"))) walk(distDir, "");
  return files;
}

const NOT_BUILT =
  "The dashboard is not built. Run `npm run build:web` in the agent-platform folder and restart the server.\n";

/** One start-up line when the dashboard cannot be served as its sources stand, saying how to build it. */
function warnAboutBuild(app: FastifyInstance, distDir: string): void {
  const webDir = dirname(distDir);
  const state = distState(webDir);
  if (state === "current") return;
  const build = `run \`npm run build:web\` in ${dirname(webDir)} and restart`;
  if (state === "stale") app.log.warn(`dashboard build is older than its sources in ${webDir}: ${build}`);
  // A packed package carries the build and no sources: without the build it is damaged, not unbuilt.
  else if (!existsSync(join(webDir, "src")))
    app.log.warn(`dashboard missing from ${distDir}: reinstall agent-platform`);
  else app.log.warn(`dashboard not built: / answers 503 until it is (${build})`);
}

export async function webRoutes(app: FastifyInstance, options: WebOptions): Promise<void> {
  const files = loadFiles(options.distDir);
  const index = files.get("/index.html");
  warnAboutBuild(app, options.distDir);

  const send = (request: FastifyRequest, reply: FastifyReply, file: StaticFile) => {
    reply.header("content-type", file.type);
    reply.header("x-content-type-options", "nosniff");
    if (file.immutable) reply.header("cache-control", "public, max-age=31536000, immutable");
    else reply.header("cache-control", "no-cache");
    if (file.type.startsWith("text/html")) {
      reply.header("content-security-policy", DASHBOARD_CSP);
      reply.header("referrer-policy", "no-referrer");
      reply.header("x-frame-options", "DENY");
    }
    if (file.gzipped) {
      reply.header("vary", "accept-encoding");
      if (/\bgzip\b/.test(String(request.headers["accept-encoding"] ?? ""))) {
        reply.header("content-encoding", "gzip");
        return reply.send(file.gzipped);
      }
    }
    return reply.send(file.body);
  };

  const page = async (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split("?")[0]!;
    const firstSegment = path.split("/")[1] ?? "";
    if (SERVER_PREFIXES.has(firstSegment)) return reply.callNotFound();
    const file = files.get(path);
    if (file) return send(request, reply, file);
    // A missing hashed asset is a 404, not the page: a stale tab must not run HTML as a script.
    if (path.startsWith("/assets/") || extname(path) !== "") return reply.callNotFound();
    if (!index)
      return reply.code(503).type("text/plain; charset=utf-8").header("cache-control", "no-cache").send(NOT_BUILT);
    return send(request, reply, index);
  };

  app.get("/", { schema: { hide: true } }, page);
  app.get("/*", { schema: { hide: true } }, page);
}
