// `agent-platform runner`: works the tasks of the agents bound to this machine's agent CLIs (runtimes.md §4).
import { createRequire } from "node:module";
import { homedir, hostname } from "node:os";
import { join, resolve } from "node:path";
import { UsageError } from "../cli/options.ts";
import { detectRuntimes, RuntimeOptionError } from "./detect.ts";
import { RUNNER_TOKEN_VARIABLE, scrubbedEnvironment } from "./env.ts";
import { Repositories } from "./repos.ts";
import { Runner } from "./runner.ts";
import { runnerId } from "./state.ts";
import { ensureRunnerDirs, runnerDirs } from "./workdir.ts";

const MAX_TASKS_LIMIT = 20;
const DEFAULT_SILENCE_MS = 10 * 60_000;

/** The runner's options, as the command table (cli/commands.ts) parsed them. */
export interface RunnerFlags {
  url?: string;
  token?: string;
  name?: string;
  dir?: string;
  "max-tasks"?: string;
  tags?: string;
  runtime?: string[];
  "no-env"?: string[];
  "silence-timeout"?: string;
}

/**
 * Runs until stopped (Ctrl-C) or refused; resolves to the exit code: 0 stopped, 1 refused or failed, 2 bad usage.
 * Bad option values throw a UsageError (the CLI prints it with the usage and exits 2).
 */
export async function runnerCommand(
  flags: RunnerFlags,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const options = readOptions(flags, env);

  const dirs = runnerDirs(options.dir);
  await ensureRunnerDirs(dirs);
  const baseEnv = scrubbedEnvironment(env, { runnerToken: options.token, withheld: options.withheld });
  let runtimes: Awaited<ReturnType<typeof detectRuntimes>>;
  try {
    runtimes = await detectRuntimes({
      path: env.PATH ?? "",
      commandRuntimes: options.commandRuntimes,
      tags: options.tags,
      env: baseEnv,
    });
  } catch (error) {
    if (!(error instanceof RuntimeOptionError)) throw error;
    console.error(error.message);
    return 2;
  }
  if (runtimes.length === 0) {
    console.error("No agent CLI found on PATH (claude, codex, opencode, gemini) and no --runtime name=command given");
    return 2;
  }

  const runner = new Runner(
    {
      url: options.url,
      token: options.token,
      runnerId: await runnerId(dirs.root),
      name: options.name,
      host: hostname(),
      version: packageVersion(),
      maxTasks: options.maxTasks,
      runtimes,
      context: { dirs, repos: new Repositories(dirs.repos, baseEnv), baseEnv, silenceMs: options.silenceMs },
    },
    {
      line: (text) => console.log(`${new Date().toISOString().slice(11, 19)} ${text}`),
      warn: (text) => console.error(`${new Date().toISOString().slice(11, 19)} ${text}`),
    },
  );
  let interrupts = 0;
  const onSignal = () => {
    interrupts++;
    if (interrupts === 1) runner.drain();
    else if (interrupts === 2) runner.stopTasks();
    else process.exit(130); // a third: leave now; the server retries what is left once its leases end
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    return await runner.run();
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

function readOptions(values: RunnerFlags, env: Readonly<Record<string, string | undefined>>) {
  const url = values.url;
  if (url === undefined) throw new UsageError("--url is required");
  if (!/^https?:\/\/[^/]/.test(url) || !URL.canParse(url))
    throw new UsageError(`--url ${url}: expected an http(s) URL`);
  const token = values.token ?? env[RUNNER_TOKEN_VARIABLE];
  if (token === undefined || token === "") {
    throw new UsageError(`A runner token is needed: --token or ${RUNNER_TOKEN_VARIABLE}`);
  }
  const maxTasks = Number(values["max-tasks"] ?? 1);
  if (!Number.isInteger(maxTasks) || maxTasks < 1 || maxTasks > MAX_TASKS_LIMIT) {
    throw new UsageError(`--max-tasks ${values["max-tasks"]}: expected a whole number from 1 to ${MAX_TASKS_LIMIT}`);
  }
  return {
    url,
    token,
    name: values.name ?? hostname(),
    dir: resolve(values.dir ?? join(env.HOME ?? homedir(), ".agent-platform", "runner")),
    maxTasks,
    tags: list(values.tags === undefined ? [] : [values.tags]),
    commandRuntimes: values.runtime ?? [],
    withheld: list(values["no-env"] ?? []),
    silenceMs: values["silence-timeout"] === undefined ? DEFAULT_SILENCE_MS : duration(values["silence-timeout"]),
  };
}

function list(values: readonly string[]): string[] {
  return values
    .flatMap((value) => value.split(","))
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

function duration(value: string): number {
  const match = /^(\d+)(ms|s|m|h)?$/.exec(value.trim());
  const ms = match === null ? Number.NaN : Number(match[1]) * (UNIT_MS[match[2] ?? "s"] ?? 1000);
  if (!(ms > 0)) throw new UsageError(`--silence-timeout ${value}: expected a duration such as 600, 90s, 10m or 1h`);
  return ms;
}

function packageVersion(): string {
  const pkg = createRequire(import.meta.url)("../../package.json") as { version?: string };
  return pkg.version ?? "unknown";
}
