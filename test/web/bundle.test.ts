// The dashboard's types come from the server's zod schemas (web/src/api-types.ts), yet its bundle carries none of the
// server: everything it takes from src/ is a type, erased at build, except the event type list and the enums (plain
// arrays in modules without imports).
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const web = fileURLToPath(new URL("../../web/", import.meta.url));
/** Modules of the server without imports of their own, made for the dashboard to share. */
const RUNTIME_IMPORTS_ALLOWED = ["src/events/event-types.ts", "src/db/enums.ts"];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : /\.tsx?$/.test(entry.name)
        ? [join(dir, entry.name)]
        : [],
  );
}

describe("the dashboard and the server's schemas", () => {
  it("takes only types from the server's code (and the event type list)", () => {
    const runtime: string[] = [];
    let typeImports = 0;
    for (const file of sourceFiles(join(web, "src"))) {
      const text = readFileSync(file, "utf8");
      for (const found of text.matchAll(/^import\s+(type\s+)?[^;]*?from\s+"((?:\.\.\/)+src\/[^"]+)"/gms)) {
        const target = relative(join(web, ".."), join(file, "..", found[2]!));
        if (found[1]) typeImports++;
        else if (!RUNTIME_IMPORTS_ALLOWED.includes(target)) runtime.push(`${relative(web, file)} imports ${target}`);
      }
    }
    expect(runtime).toEqual([]);
    // The API types are the server's own (api-types.ts imports the schemas), not a copy.
    expect(typeImports).toBeGreaterThan(10);
  });

  it("ships no zod and no server module in the built files", () => {
    const assets = join(web, "dist", "assets");
    const scripts = readdirSync(assets).filter((name) => name.endsWith(".js"));
    expect(scripts.length).toBeGreaterThan(0);
    for (const name of scripts) {
      const text = readFileSync(join(assets, name), "utf8");
      expect(text, name).not.toContain("ZodError");
      expect(text, name).not.toContain("issue_list_version");
    }
  });
});
