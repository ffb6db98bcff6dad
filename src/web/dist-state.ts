// Whether the dashboard's build (web/dist) is there and newer than its sources. The sources are there only in a
// checkout: a packed package carries web/dist alone, which is then current by definition.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

type DistState = "missing" | "stale" | "current";

function newestChange(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestChange(join(path, entry)));
  return newest;
}

/** `webDir` holds the sources (src/, index.html, vite.config.ts) and the build (dist/). */
export function distState(webDir: string): DistState {
  const builtIndex = join(webDir, "dist", "index.html");
  if (!existsSync(builtIndex)) return "missing";
  const sources = ["src", "index.html", "vite.config.ts"].map((name) => join(webDir, name)).filter(existsSync);
  if (sources.length === 0) return "current";
  return Math.max(...sources.map(newestChange)) > statSync(builtIndex).mtimeMs ? "stale" : "current";
}
