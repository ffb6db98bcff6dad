// The checks shared by the JS/TS and the Python loaders: a definition is `{name, description, parameters}`.
import { readFileSync } from "node:fs";
import { Ajv } from "ajv";
import type { JsonSchemaObject } from "./registry.ts";
import { ToolsFileError } from "./tools-file-error.ts";

interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: JsonSchemaObject;
}

// The name rule of the model providers' function calling, so a loaded tool is usable by every consumer.
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const schemaChecker = new Ajv({ strict: false });

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function checkOne(raw: unknown, index: number, file: string): ToolDefinition {
  const where = `tools[${index}]`;
  if (!isPlainObject(raw))
    throw new ToolsFileError(file, `${where}: the definition must be an object {name, description, parameters}`);
  const { name, description, parameters } = raw;
  if (name === undefined || name === null || name === "")
    throw new ToolsFileError(file, `${where}: the definition has no name`);
  if (typeof name !== "string" || !TOOL_NAME.test(name)) {
    throw new ToolsFileError(
      file,
      `${where}: the name ${JSON.stringify(name)} must be 1 to 64 letters, digits, "_" or "-"`,
      lineOfText(file, String(name)),
    );
  }
  if (description !== undefined && description !== null && typeof description !== "string") {
    throw new ToolsFileError(file, `${where} (${name}): description must be a string`, lineOfText(file, name));
  }
  let inputSchema: JsonSchemaObject = { type: "object", properties: {} };
  if (parameters !== undefined && parameters !== null) {
    if (!isPlainObject(parameters) || (parameters.type !== undefined && parameters.type !== "object")) {
      throw new ToolsFileError(
        file,
        `${where} (${name}): parameters must be a JSON Schema object ({type: "object", properties: {...}})`,
        lineOfText(file, name),
      );
    }
    inputSchema = { ...parameters, type: "object" };
    try {
      schemaChecker.compile(inputSchema);
    } catch (error) {
      throw new ToolsFileError(
        file,
        `${where} (${name}): parameters is not a valid JSON Schema: ${error instanceof Error ? error.message : error}`,
        lineOfText(file, name),
      );
    }
  }
  return { name, description: description ?? "", inputSchema };
}

/** Checks every definition and that no two share a name. */
export function checkDefinitions(raws: unknown[], file: string): ToolDefinition[] {
  const definitions: ToolDefinition[] = [];
  const firstIndex = new Map<string, number>();
  raws.forEach((raw, index) => {
    const definition = checkOne(raw, index, file);
    const earlier = firstIndex.get(definition.name);
    if (earlier !== undefined) {
      throw new ToolsFileError(
        file,
        `tools[${index}]: the name "${definition.name}" is already used by tools[${earlier}]`,
        lineOfText(file, definition.name, 1),
      );
    }
    firstIndex.set(definition.name, index);
    definitions.push(definition);
  });
  return definitions;
}

/** Best effort: the line where a quoted name appears in the file (the nth time). */
function lineOfText(file: string, name: string, occurrence = 0): number | undefined {
  let source: string;
  try {
    source = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  for (const quote of ['"', "'", "`"]) {
    const line = lineOf(source, `${quote}${name}${quote}`, occurrence);
    if (line) return line;
  }
  return undefined;
}

/** The 1-based line of the nth (0-based) occurrence of `needle` in `source`, if there is one. */
function lineOf(source: string, needle: string, occurrence: number): number | undefined {
  let at = -1;
  for (let seen = 0; seen <= occurrence; seen++) {
    at = source.indexOf(needle, at + 1);
    if (at < 0) return undefined;
  }
  return source.slice(0, at).split("\n").length;
}
