// A command's options, declared once: node:util parseArgs (strict) reads them and the help text is written from them.
import { type ParseArgsConfig, parseArgs } from "node:util";

type OptionSpec =
  | {
      type: "string" /** The value's name in the help text: `--port PORT`. */;
      value: string;
      help: string;
      short?: string;
      /** May be given several times: the values come as a list. */
      multiple?: true;
    }
  | { type: "boolean"; help: string; short?: string };

export type OptionSpecs = Record<string, OptionSpec>;

/** What parseArgs gives for these options: strings and booleans, each absent unless given. */
export type OptionValues<O extends OptionSpecs> = {
  [Name in keyof O]?: O[Name] extends { type: "boolean" }
    ? boolean
    : O[Name] extends { multiple: true }
      ? string[]
      : string;
};

/** Bad command-line input: the message and the usage go to stderr, the exit code is 2. */
export class UsageError extends Error {}

/** Parses `args` strictly (no unknown options, no positionals); a parse failure is a UsageError. */
export function parseOptions<O extends OptionSpecs>(options: O, args: string[]): OptionValues<O> {
  const config: NonNullable<ParseArgsConfig["options"]> = {};
  for (const [name, spec] of Object.entries(options)) {
    config[name] = {
      type: spec.type,
      ...(spec.short !== undefined && { short: spec.short }),
      ...(spec.type === "string" && spec.multiple && { multiple: true }),
    };
  }
  try {
    return parseArgs({ args, options: config, strict: true, allowPositionals: false }).values as OptionValues<O>;
  } catch (error) {
    // parseArgs explains itself ("Unknown option '--x'", "Option '--port <value>' argument missing"); its
    // advice to use "--" for positionals does not apply here.
    const message = error instanceof Error ? error.message : String(error);
    throw new UsageError(message.replace(/\. To specify a positional argument.*$/s, ""));
  }
}

/** A --port value: 0-65535 (0 picks a free port). */
export function portOption(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const port = Number(value);
  if (value.trim() === "" || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(`--${name} must be a port number (0-65535), got "${value}"`);
  }
  return port;
}
