// Builds the dashboard (web/ → web/dist) when the build is missing or older than its sources. `npm install` and
// `npm pack` run it (the `prepare` script), `npm start` and the test suite's global setup too, so a fresh clone or
// an installed package serves the dashboard without a separate step.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { distState } from "../src/web/dist-state.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const web = join(root, "web");

/** Builds web/dist if it is missing or stale; returns whether it built. */
export function ensureWebBuild(): boolean {
  if (distState(web) === "current") return false;
  const vite = join(root, "node_modules", "vite", "bin", "vite.js");
  if (!existsSync(vite)) {
    // An install without the dev dependencies cannot build; `serve` then says in its log how to.
    console.warn(
      "agent-platform: the dashboard was not built (vite is not installed: npm install, then npm run build:web)",
    );
    return false;
  }
  execFileSync(process.execPath, [vite, "build", "--config", join(web, "vite.config.ts")], {
    cwd: root,
    stdio: "inherit",
    // Under vitest NODE_ENV is "test", which would bundle React's development build.
    env: { ...process.env, NODE_ENV: "production" },
  });
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) ensureWebBuild();
