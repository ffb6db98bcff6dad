// The Debian tools some tests drive (never our own code). Where one is not on PATH, what needs it is skipped,
// visibly (vitest counts it as skipped), and the global setup says in one line what is missing and how to install
// it; .ci/run installs them all, so CI runs every test. Two ways to say what needs a tool:
// - a suite whose hooks start it: `describe("…", needs("chromium"), () => …)`;
// - a helper called inside a test (speech): `skipUnless(["espeak-ng", "sox"])` skips just the tests that call it.
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { TestRunner } from "vitest";

/** Each tool and the Debian package that has it. */
const SYSTEM_TOOLS = {
  "espeak-ng": "espeak-ng", // voice: real speech
  sox: "sox", // voice: speech to μ-law 8 kHz
  chromium: "chromium", // the dashboard in a browser
  curl: "curl", // the README's examples
  jq: "jq", // the README's examples
  haproxy: "haproxy", // several processes behind a round-robin proxy
} as const;

type SystemTool = keyof typeof SYSTEM_TOOLS;

/** The tool's path on PATH (chromium: CHROMIUM_PATH first), or undefined. */
function findTool(tool: SystemTool): string | undefined {
  if (tool === "chromium" && process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  const dirs = (process.env.PATH ?? "").split(delimiter).filter((dir) => dir !== "");
  return dirs.map((dir) => join(dir, tool)).find(isExecutable);
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Of these tools (default all), the ones not on PATH. */
function missingTools(tools: readonly SystemTool[] = Object.keys(SYSTEM_TOOLS) as SystemTool[]): SystemTool[] {
  return tools.filter((tool) => findTool(tool) === undefined);
}

/** Options for `describe`/`it`: skipped unless every tool is on PATH. `it("…", needs("chromium"), async () => …)` */
export function needs(...tools: SystemTool[]): { skip: boolean } {
  return { skip: missingTools(tools).length > 0 };
}

/** Inside a test: skips it (with a note naming what is missing) unless every tool is on PATH. */
export function skipUnless(tools: SystemTool[]): void {
  const missing = missingTools(tools);
  if (missing.length === 0) return;
  const test = TestRunner.getCurrentTest();
  if (!test) throw new Error(`${missing.join(", ")} not on PATH, outside a test: say needs(...) on the suite`);
  test.context.skip(`needs ${missing.join(", ")} (not on PATH)`);
}

/** The tool's path; fails naming the suite's missing `needs(...)` when it is not on PATH. */
export function requireTool(tool: SystemTool): string {
  const path = findTool(tool);
  if (!path) throw new Error(`${tool} is not on PATH: the test that uses it must say needs("${tool}")`);
  return path;
}

/** The one line the global setup prints when tools are missing (undefined when none is). */
export function missingToolsLine(): string | undefined {
  const missing = missingTools();
  if (missing.length === 0) return undefined;
  const packages = [...new Set(missing.map((tool) => SYSTEM_TOOLS[tool]))].join(" ");
  // Debian installs haproxy in /usr/sbin, which a user's PATH often lacks.
  const inSbin = missing.filter((tool) => isExecutable(join("/usr/sbin", tool)));
  const sbinHint = inSbin.length ? ` (${inSbin.join(", ")}: in /usr/sbin, add it to PATH)` : "";
  return (
    `!! Tests needing ${missing.join(", ")} were SKIPPED: not on PATH${sbinHint}. ` +
    `Install: sudo apt-get install -y ${packages}`
  );
}
