/** A tools file that cannot be used: the message names the file and, when known, the line. */
export class ToolsFileError extends Error {
  override readonly name = "ToolsFileError";

  constructor(
    readonly file: string,
    readonly detail: string,
    readonly line?: number,
  ) {
    super(`Cannot load tools from ${file}${line ? `:${line}` : ""}: ${detail}`);
  }
}

/** The 1-based line of the nth (0-based) occurrence of `needle` in `source`, if there is one. */
export function lineOf(source: string, needle: string, occurrence = 0): number | undefined {
  let at = -1;
  for (let seen = 0; seen <= occurrence; seen++) {
    at = source.indexOf(needle, at + 1);
    if (at < 0) return undefined;
  }
  return source.slice(0, at).split("\n").length;
}
