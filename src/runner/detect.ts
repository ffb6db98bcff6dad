// The runtimes this machine offers: each agent CLI found on PATH (its version from `--version`) and each
// `--runtime name=command`, all with the `--tags` given.
import { execFile } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";
import { CLI_KINDS, type LocalRuntime, RUNTIME_NAME } from "./runtimes.ts";

export class RuntimeOptionError extends Error {}

interface DetectOptions {
  /** The PATH to search (the runner's own). */
  path: string;
  /** `--runtime` values, `name=command`. */
  commandRuntimes: readonly string[];
  tags: readonly string[];
  /** The environment `--version` runs in (the scrubbed one: no runner token). */
  env: Record<string, string>;
}

export async function detectRuntimes(options: DetectOptions): Promise<LocalRuntime[]> {
  const found = await Promise.all(
    CLI_KINDS.map(async (kind): Promise<LocalRuntime | undefined> => {
      const executable = findOnPath(kind, options.path);
      if (executable === undefined) return undefined;
      const version = await versionOf(executable, options.env);
      return { name: kind, kind, command: executable, ...(version ? { version } : {}), tags: [...options.tags] };
    }),
  );
  const runtimes = found.filter((runtime) => runtime !== undefined);
  for (const value of options.commandRuntimes) {
    const separator = value.indexOf("=");
    const name = value.slice(0, separator).trim();
    const command = value.slice(separator + 1).trim();
    if (separator < 0 || !RUNTIME_NAME.test(name) || command === "") {
      throw new RuntimeOptionError(`--runtime ${value}: expected name=command (name: letters, digits, . _ -)`);
    }
    if (runtimes.some((runtime) => runtime.name === name)) {
      throw new RuntimeOptionError(`--runtime ${value}: a runtime named ${name} is already offered`);
    }
    runtimes.push({ name, kind: "command", command, tags: [...options.tags] });
  }
  return runtimes;
}

/**
 * The first executable file named `name` in PATH's folders, as execvp would take it. Asked for every task a `command`
 * runtime starts: a folder without it costs one stat, and no exception.
 */
export function findOnPath(name: string, path: string): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, name);
    if (!statSync(candidate, { throwIfNoEntry: false })?.isFile()) continue;
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not executable: the search goes on
    }
  }
  return undefined;
}

/** The version a CLI prints (`2.1.3 (Claude Code)`, `codex-cli 0.58.0`), or undefined when it says none in time. */
function versionOf(executable: string, env: Record<string, string>): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(executable, ["--version"], { env, timeout: 15_000 }, (error, stdout) => {
      if (error !== null) return resolve(undefined);
      const firstLine = stdout.trim().split("\n")[0] ?? "";
      resolve(/\d+\.\d+(\.\d+)?([-+.][\w.]+)?/.exec(firstLine)?.[0] ?? (firstLine.slice(0, 100) || undefined));
    });
  });
}
