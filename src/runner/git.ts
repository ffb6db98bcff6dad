import { execFile } from "node:child_process";

class GitError extends Error {}

/**
 * Runs git and resolves to its stdout. Never prompts (a task has no terminal): a repository that needs credentials
 * the machine does not hold fails with git's own message.
 */
export function git(args: string[], options: { cwd?: string; env: Record<string, string> }): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      "git",
      args,
      {
        cwd: options.cwd,
        env: { ...options.env, GIT_TERMINAL_PROMPT: "0" },
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        if (error === null) resolve(stdout);
        else reject(new GitError(`git ${args[0]}: ${stderr.trim().split("\n").slice(-3).join(" ") || error.message}`));
      },
    );
  });
}

/** Like `git`, but a non-zero exit (a `--verify` that finds nothing) is undefined rather than an error. */
export async function gitMaybe(args: string[], options: { cwd?: string; env: Record<string, string> }) {
  try {
    return (await git(args, options)).trim();
  } catch (error) {
    if (error instanceof GitError) return undefined;
    throw error;
  }
}
