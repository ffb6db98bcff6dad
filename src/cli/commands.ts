// Every command of `agent-platform`, its options and its help, in one table: the parser, `--help` and the usage
// text all read it. A command's code is imported only when it runs, so `--help` starts nothing and loads little.
import { type OptionSpecs, type OptionValues, portOption } from "./options.ts";

export interface Command {
  /** One line for the command list. */
  summary: string;
  /** Said under the usage line of `<command> --help`. */
  description: string;
  options: OptionSpecs;
  /** Runs the command; resolves with the exit code once it is done (serve: once it listens). */
  run(values: Record<string, string | string[] | boolean | undefined>): Promise<number>;
}

/** Keeps each command's `run` typed by its own options. */
function command<const O extends OptionSpecs>(spec: {
  summary: string;
  description: string;
  options: O;
  run(values: OptionValues<O>): Promise<number>;
}): Command {
  return { ...spec, run: (values) => spec.run(values as OptionValues<O>) };
}

const toolsOption = {
  type: "string",
  value: "PATH",
  help: "the tools file (.ts .js .mjs .py); default: tools.ts, tools.js, tools.mjs or tools.py here",
} as const;

export const COMMANDS: Record<string, Command> = {
  serve: command({
    summary: "platform API, tool protocol, agent UI and dashboard on one port",
    description:
      "Serves the platform API (/api/v1), the tool protocol (/mcp, /sse), the agent UI (/agui) and the dashboard (/)\n" +
      "on one port. Migrates the database (DATABASE_URL, default ./data/agent-platform.db) first.",
    options: {
      host: { type: "string", value: "HOST", help: "address to listen on (default HOST, else 127.0.0.1)" },
      port: { type: "string", value: "PORT", help: "port to listen on, 0 for any free one (default PORT, else 8000)" },
      tools: toolsOption,
    },
    run: async (values) => (await import("./serve.ts")).serve(values),
  }),
  call: command({
    summary: "voice-call server: answers phone calls with a realtime speech model",
    description: "Answers the phone carrier's webhook and bridges each call to the realtime speech provider.",
    options: {
      public: { type: "boolean", help: "open a public tunnel for the carrier's webhook (default PUBLIC, else off)" },
      port: { type: "string", value: "PORT", help: "port to listen on, 0 for any free one (default PORT, else 8090)" },
      tools: toolsOption,
    },
    run: async ({ port, ...values }) => {
      const flags = { ...values, port: portOption("port", port) };
      return (await import("../voice/call-command.ts")).runCallCommand(flags);
    },
  }),
  mcp: command({
    summary: "tool protocol over stdio, for clients that start their servers as commands",
    description:
      "Speaks the tool protocol (MCP) on stdin/stdout; logs go to stderr. AGENT_PLATFORM_API_KEY (a workspace API key)\n" +
      "or --workspace adds that workspace's tools, read from DATABASE_URL.",
    options: {
      tools: toolsOption,
      workspace: { type: "string", value: "ID", help: "act in this workspace as its first owner (no API key needed)" },
    },
    run: async (values) => (await import("../mcp/stdio-command.ts")).runMcpCommand(values),
  }),
  runner: command({
    summary: "works the tasks of agents bound to this machine's agent CLIs",
    description:
      "Registers this machine's agent CLIs (claude, codex, opencode, gemini on PATH, and each --runtime) with the\n" +
      "platform as runtimes, then claims and works the tasks of the agents bound to them. Ctrl-C lets running tasks\n" +
      "finish and deregisters; a second Ctrl-C stops them (the server retries them).",
    options: {
      url: { type: "string", value: "URL", help: "the platform (e.g. https://agents.example.com); required" },
      token: {
        type: "string",
        value: "apr_…",
        help: "a runner token (default AGENT_PLATFORM_RUNNER_TOKEN); admins create one on the Runtimes page",
      },
      name: { type: "string", value: "NAME", help: "how the dashboard names this runner (default: the host name)" },
      dir: {
        type: "string",
        value: "DIR",
        help: "working directories, clones and state (default ~/.agent-platform/runner)",
      },
      "max-tasks": { type: "string", value: "N", help: "tasks at once, 1-20 (default 1)" },
      tags: { type: "string", value: "a,b", help: "tags of every runtime offered (agents select runtimes by them)" },
      runtime: {
        type: "string",
        value: "name=command",
        multiple: true,
        help: "also offer a command as a runtime (repeatable): brief on stdin, answer on stdout",
      },
      "no-env": {
        type: "string",
        value: "NAME[,NAME…]",
        multiple: true,
        help: "variables never passed to a CLI (repeatable; NAME* for a prefix), besides the runner's own",
      },
      "silence-timeout": {
        type: "string",
        value: "10m",
        help: "stop and fail (retryable) a CLI silent this long (ms, s, m, h; default 10m)",
      },
    },
    run: async (values) => (await import("../runner/command.ts")).runnerCommand(values, process.env),
  }),
  migrate: command({
    summary: "bring the database schema up to date (serve does this on start too)",
    description: "Applies the migrations the database (DATABASE_URL) does not have yet, then exits.",
    options: {},
    run: async () => (await import("./migrate.ts")).migrate(),
  }),
};

/** Every command understands these; they are answered before the command runs. */
export const HELP_OPTION = { help: { type: "boolean", short: "h", help: "show this help" } } as const;

export const GLOBAL_OPTIONS = {
  ...HELP_OPTION,
  version: { type: "boolean", short: "v", help: "print the version" },
} as const;
