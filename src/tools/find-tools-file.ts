import { stat } from "node:fs/promises";
import { extname, join, resolve } from "node:path";
import { ToolsFileError } from "./tools-file-error.ts";

/** Looked for in this order; the first one found is the tools file. */
const TOOLS_FILE_NAMES = ["tools.ts", "tools.js", "tools.mjs", "tools.py"] as const;
const JS_EXTENSIONS = [".ts", ".mts", ".cts", ".js", ".mjs", ".cjs"];

async function kind(path: string): Promise<"file" | "directory" | undefined> {
  try {
    const info = await stat(path);
    return info.isDirectory() ? "directory" : "file";
  } catch {
    return undefined;
  }
}

async function firstInDirectory(directory: string): Promise<string | undefined> {
  for (const name of TOOLS_FILE_NAMES) {
    const candidate = join(directory, name);
    if ((await kind(candidate)) === "file") return candidate;
  }
  return undefined;
}

/**
 * The tools file to load: `path` (a file, or a directory to look in) when given, which must then exist;
 * otherwise the first of TOOLS_FILE_NAMES in `cwd`, or undefined when there is none.
 */
export async function findToolsFile(options: { cwd?: string; path?: string }): Promise<string | undefined> {
  const cwd = resolve(options.cwd ?? process.cwd());
  if (options.path === undefined || options.path === "") return firstInDirectory(cwd);

  const path = resolve(cwd, options.path);
  const found = await kind(path);
  if (found === undefined) throw new ToolsFileError(path, "no such file or directory");
  if (found === "directory") {
    const inside = await firstInDirectory(path);
    if (!inside) throw new ToolsFileError(path, `the directory holds none of ${TOOLS_FILE_NAMES.join(", ")}`);
    return inside;
  }
  const extension = extname(path);
  if (extension !== ".py" && !JS_EXTENSIONS.includes(extension)) {
    throw new ToolsFileError(path, `unsupported file type "${extension}" (expected .ts, .js, .mjs or .py)`);
  }
  return path;
}
