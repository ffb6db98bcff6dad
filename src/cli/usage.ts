// The help texts, written from the command table.
import { COMMANDS, type Command, GLOBAL_OPTIONS, HELP_OPTION } from "./commands.ts";
import type { OptionSpecs } from "./options.ts";

function optionLines(options: OptionSpecs): string[] {
  const flags = Object.entries(options).map(([name, spec]) => {
    const long = `--${name}${spec.type === "string" ? ` ${spec.value}` : ""}`;
    return [spec.short ? `-${spec.short}, ${long}` : `    ${long}`, spec.help] as const;
  });
  const width = Math.max(...flags.map(([flag]) => flag.length));
  return flags.map(([flag, help]) => `  ${flag.padEnd(width)}  ${help}`);
}

export function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  return [
    "Usage: agent-platform <command> [options]",
    "",
    "Commands:",
    ...Object.entries(COMMANDS).map(([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`),
    "",
    "Options:",
    ...optionLines(GLOBAL_OPTIONS),
    "",
    "`agent-platform <command> --help` shows a command's options. Settings come from environment variables",
    "(DATABASE_URL, PORT, model keys…): see the README.",
  ].join("\n");
}

export function commandUsage(name: string, command: Command): string {
  const hasOptions = Object.keys(command.options).length > 0;
  return [
    `Usage: agent-platform ${name}${hasOptions ? " [options]" : ""}`,
    "",
    command.description,
    "",
    "Options:",
    ...optionLines({ ...command.options, ...HELP_OPTION }),
  ].join("\n");
}
