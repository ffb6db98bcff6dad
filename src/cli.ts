// agent-platform <command> [options]: the commands are in cli/commands.ts; this reads the command line, answers
// --help and --version, and runs the command. Bad input prints the usage on stderr and exits 2.
import { COMMANDS, GLOBAL_OPTIONS, HELP_OPTION } from "./cli/commands.ts";
import { parseOptions, UsageError } from "./cli/options.ts";
import { commandUsage, usage } from "./cli/usage.ts";
import { VERSION } from "./version.ts";

/** Resolves with the exit code; a command that keeps running (serve) resolves once it is up. */
async function main(args: string[]): Promise<number> {
  const [first, ...rest] = args;
  if (first === undefined) {
    console.log(usage());
    return 0;
  }
  if (first === "help") return help(rest);
  if (first.startsWith("-")) {
    const values = parseOptions(GLOBAL_OPTIONS, args);
    if (values.version) console.log(VERSION);
    else console.log(usage());
    return 0;
  }
  const command = COMMANDS[first];
  if (!command) throw new UsageError(`Unknown command: ${first}`);
  const values = parseOptions({ ...command.options, ...HELP_OPTION }, rest);
  if (values.help) {
    console.log(commandUsage(first, command));
    return 0;
  }
  return command.run(values);
}

/** `agent-platform help [command]`. */
function help(args: string[]): number {
  const [name, ...extra] = args;
  if (name === undefined) {
    console.log(usage());
    return 0;
  }
  const command = COMMANDS[name];
  if (!command || extra.length) throw new UsageError(`Unknown command: ${args.join(" ")}`);
  console.log(commandUsage(name, command));
  return 0;
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  if (error instanceof UsageError) {
    const name = process.argv[2];
    const command = name === undefined ? undefined : COMMANDS[name];
    console.error(`agent-platform: ${error.message}\n\n${command ? commandUsage(name!, command) : usage()}`);
    process.exitCode = 2;
  } else {
    // Whatever the command had opened (a database pool, a listening socket) must not keep a failed start alive.
    console.error(`agent-platform: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
