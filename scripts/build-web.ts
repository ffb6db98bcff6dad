// Builds the dashboard (web/ → web/dist) when the build is missing or older than its sources; `npm start` and the
// test suite's global setup call it, so a fresh clone serves the dashboard without a separate step.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const web = join(root, "web");
const builtIndex = join(web, "dist", "index.html");

function newestSource(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestSource(join(path, entry)));
  return newest;
}

export function webBuildIsStale(): boolean {
  if (!existsSync(builtIndex)) return true;
  const sources = ["src", "index.html", "vite.config.ts"].map((name) => newestSource(join(web, name)));
  return Math.max(...sources) > statSync(builtIndex).mtimeMs;
}

/** Builds web/dist if it is missing or stale; returns whether it built. */
export function ensureWebBuild(): boolean {
  if (!webBuildIsStale()) return false;
  const vite = join(root, "node_modules", "vite", "bin", "vite.js");
  execFileSync(process.execPath, [vite, "build", "--config", join(web, "vite.config.ts")], {
    cwd: root,
    stdio: "inherit",
    // Under vitest NODE_ENV is "test", which would bundle React's development build.
    env: { ...process.env, NODE_ENV: "production" },
  });
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) ensureWebBuild();
