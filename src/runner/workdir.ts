// The runner's folder: DIR/work/<task id> (where a CLI works), DIR/repos/ (one clone per repository URL),
// DIR/secrets/<task id> (files holding a task token, gone when the task ends), DIR/skill-files/<sha256> (skills'
// files, fetched once), DIR/runner.json (the runner id).
import { existsSync } from "node:fs";
import { appendFile, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { git, gitMaybe } from "./git.ts";

export interface RunnerDirs {
  root: string;
  work: string;
  repos: string;
  secrets: string;
  skillFiles: string;
}

export function runnerDirs(root: string): RunnerDirs {
  return {
    root,
    work: join(root, "work"),
    repos: join(root, "repos"),
    secrets: join(root, "secrets"),
    skillFiles: join(root, "skill-files"),
  };
}

export async function ensureRunnerDirs(dirs: RunnerDirs): Promise<void> {
  for (const dir of [dirs.root, dirs.work, dirs.repos, dirs.secrets, dirs.skillFiles])
    await mkdir(dir, { recursive: true, mode: 0o700 });
}

/** An empty working directory for a task (what an earlier attempt left there is not resumed, so it goes). */
export async function freshWorkDir(path: string): Promise<void> {
  // Most tasks find none: one mkdir, no removal of what is not there.
  if (existsSync(path)) await rm(path, { recursive: true, force: true });
  await mkdir(path, { recursive: true });
}

/** Where a task's files holding its token go (made by the first of them: adapters/secret-file.ts). */
export const secretsDirOf = (dirs: RunnerDirs, taskId: string): string => join(dirs.secrets, taskId);

export async function removeSecretsDir(path: string): Promise<void> {
  if (existsSync(path)) await rm(path, { recursive: true, force: true });
}

const BRIEF_MARKER = "<!-- agent-platform: the task brief follows -->";

/**
 * Writes the brief into `files` (AGENTS.md, and CLAUDE.md for Claude Code) of the working directory. In a git
 * checkout the brief stays out of the agent's commits: a new file is excluded, a file the repository tracks keeps its
 * own text with the brief after it and is marked skip-worktree.
 */
export async function writeBriefs(
  workDir: string,
  files: readonly string[],
  prompt: string,
  env: Record<string, string>,
): Promise<void> {
  const checkout = existsSync(join(workDir, ".git"));
  for (const name of files) {
    const path = join(workDir, name);
    const tracked = checkout && (await gitMaybe(["ls-files", "--error-unmatch", "--", name], { cwd: workDir, env }));
    if (!tracked) {
      await writeFile(path, prompt);
      if (checkout) await excludeFromGit(workDir, `/${name}`, env);
      continue;
    }
    const own = (await readFile(path, "utf8")).split(BRIEF_MARKER)[0]?.trimEnd() ?? "";
    await writeFile(path, `${own}\n\n${BRIEF_MARKER}\n\n${prompt}`);
    await git(["update-index", "--skip-worktree", "--", name], { cwd: workDir, env });
  }
}

/** Adds `line` (e.g. `/AGENTS.md`) to the checkout's info/exclude, once: what the runner writes stays out of commits. */
export async function excludeFromGit(workDir: string, line: string, env: Record<string, string>): Promise<void> {
  const commonDir = (
    await git(["rev-parse", "--path-format=absolute", "--git-common-dir"], { cwd: workDir, env })
  ).trim();
  const excludeFile = join(commonDir, "info", "exclude");
  const current = existsSync(excludeFile) ? await readFile(excludeFile, "utf8") : "";
  if (current.split("\n").includes(line)) return;
  await mkdir(join(commonDir, "info"), { recursive: true });
  await appendFile(excludeFile, `${current === "" || current.endsWith("\n") ? "" : "\n"}${line}\n`);
}
