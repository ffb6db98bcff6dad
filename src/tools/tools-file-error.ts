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
