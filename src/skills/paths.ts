// A file's path inside a skill folder: relative, `/`-separated, never leaving the folder once a runner writes it to
// disk on any system (no `..`, no absolute or drive-letter path, no backslash that Windows would read as a separator).
import { MAX_PATH_LENGTH } from "./limits.ts";

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what this refuses
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Why `path` cannot name a file in a skill folder, or undefined when it can. */
export function pathProblem(path: string): string | undefined {
  if (path === "") return "is empty";
  if (path.length > MAX_PATH_LENGTH) return `is longer than ${MAX_PATH_LENGTH} characters`;
  if (CONTROL.test(path)) return "contains control characters";
  if (path.includes("\\")) return "contains a backslash (use / between folders)";
  if (path.startsWith("/") || /^[A-Za-z]:/.test(path)) return "is absolute (paths are relative to the skill folder)";
  const segments = path.split("/");
  if (segments.includes("..")) return "escapes the skill folder (..)";
  if (segments.some((segment) => segment === "" || segment === ".")) return "has an empty or . segment";
  return undefined;
}
