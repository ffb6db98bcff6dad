// Custom tools: the tools file of the working directory (tools.ts, tools.js, tools.mjs or tools.py) or `--tools PATH`.
import { findToolsFile } from "./find-tools-file.ts";
import { loadJsTools } from "./js-tools.ts";
import type { PythonChildOptions } from "./python-child.ts";
import { loadPythonTools } from "./python-tools.ts";
import type { Tool } from "./registry.ts";

export { ToolsFileError } from "./tools-file-error.ts";

export interface CustomTools {
  /** The tools file loaded, or undefined when there is none. */
  file: string | undefined;
  tools: Tool[];
  /** Ends what the tools need (the Python process); the tools cannot be called afterwards. */
  close(): Promise<void>;
}

/**
 * With `path`: that file, or the first tools file inside that directory (it must exist).
 * Without: the first of tools.ts, tools.js, tools.mjs, tools.py in `cwd` (default process.cwd()), if any.
 * A file that cannot be loaded throws a ToolsFileError naming the file and, when known, the line.
 */
export async function loadCustomTools(
  options: { cwd?: string; path?: string; python?: PythonChildOptions } = {},
): Promise<CustomTools> {
  const file = await findToolsFile(options);
  if (!file) return { file: undefined, tools: [], close: async () => {} };
  if (file.endsWith(".py")) return { file, ...(await loadPythonTools(file, options.python)) };
  return { file, tools: await loadJsTools(file), close: async () => {} };
}
