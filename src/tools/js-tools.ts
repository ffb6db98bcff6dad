// Loads tools.ts / tools.js / tools.mjs: `export const tools = [[definition, async (args) => result], ...]`.
import { createJiti } from "jiti";
import type { Tool } from "./registry.ts";
import { checkDefinitions } from "./tool-definitions.ts";
import { ToolsFileError } from "./tools-file-error.ts";

type ToolFunction = (args: Record<string, unknown>, ctx: unknown) => unknown;

// No file-system cache: node_modules is shared between checkouts, and an edited tools file must load afresh.
const jiti = createJiti(import.meta.url, { moduleCache: false, fsCache: false, sourceMaps: true });

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The line in `file` an import-time error points at: `file:line:col` in its message (parse errors) or stack. */
function errorLine(error: unknown, file: string): number | undefined {
  if (!(error instanceof Error)) return undefined;
  const at = new RegExp(`${escapeRegExp(file)}:(\\d+)(?::\\d+)?`);
  const match = at.exec(error.message) ?? at.exec(error.stack ?? "");
  return match ? Number(match[1]) : undefined;
}

function errorDetail(error: unknown, file: string): string {
  if (!(error instanceof Error)) return `threw ${String(error)} while loading`;
  const firstLine = error.message.split("\n")[0]!.trim();
  // jiti puts "file:line:col" on its own line after the parser's message; the line is reported separately.
  const message = firstLine.replace(file, "").trim() || "failed to load";
  return error.constructor.name === "Error" || message.startsWith(error.name) ? message : `${error.name}: ${message}`;
}

export async function loadJsTools(file: string): Promise<Tool[]> {
  let module: Record<string, unknown>;
  try {
    module = (await jiti.import(file)) as Record<string, unknown>;
  } catch (error) {
    throw new ToolsFileError(file, errorDetail(error, file), errorLine(error, file));
  }
  const list = module.tools;
  if (!Array.isArray(list)) {
    throw new ToolsFileError(
      file,
      list === undefined
        ? "the module exports no `tools` (expected `export const tools = [[definition, async (args) => result], ...]`)"
        : "`tools` must be an array of [definition, function] pairs",
    );
  }
  list.forEach((pair, index) => {
    if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[1] !== "function") {
      throw new ToolsFileError(file, `tools[${index}] must be a [definition, function] pair`);
    }
  });
  const definitions = checkDefinitions(
    list.map((pair) => pair[0]),
    file,
  );
  return definitions.map((definition, index) => {
    const fn = list[index][1] as ToolFunction;
    return { ...definition, run: async (args, ctx) => await fn(args, ctx) };
  });
}
