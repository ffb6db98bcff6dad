// Repositories an agent names (`runtime_config.repository = {url, branch?}`): one clone per URL under DIR/repos/,
// and for each task a `git worktree` of it on a new branch `agent/<issue identifier>-<attempt>`.
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { basename, join } from "node:path";
import { git, gitMaybe } from "./git.ts";

interface Repository {
  url: string;
  branch?: string;
}

/** A repository that cannot be had (a wrong URL, a branch that does not exist): retrying will not help. */
export class RepositoryError extends Error {}

export class Repositories {
  /** Git operations on one clone run one at a time (two tasks fetching into one clone would trip on its locks). */
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly reposDir: string,
    private readonly env: Record<string, string>,
  ) {}

  /** Makes `path` a worktree of `repository` on a new branch named after `branchName`; resolves to the branch. */
  async worktree(repository: Repository, path: string, branchName: string): Promise<string> {
    const clone = this.clonePath(repository.url);
    return this.serial(clone, async () => {
      await this.cloneOrFetch(repository.url, clone);
      const base = await this.base(clone, repository);
      await this.removeOldWorktree(clone, path);
      const branch = await this.freeBranchName(clone, branchName);
      await git(["worktree", "add", "--no-track", "-b", branch, path, base], { cwd: clone, env: this.env });
      return branch;
    });
  }

  /**
   * The branch to report when a task ends: the worktree's current branch, if it holds commits no branch of the
   * remote has (the agent left work on it) or the remote has it (the agent pushed it).
   */
  async branchToReport(path: string): Promise<string | undefined> {
    const options = { cwd: path, env: this.env };
    const branch = await gitMaybe(["symbolic-ref", "--short", "-q", "HEAD"], options);
    if (!branch) return undefined;
    const unpushed = await gitMaybe(["rev-list", "--count", "HEAD", "--not", "--remotes=origin"], options);
    if (Number(unpushed) > 0) return branch;
    const pushed = await gitMaybe(["rev-parse", "--verify", "-q", `refs/remotes/origin/${branch}`], options);
    return pushed ? branch : undefined;
  }

  clonePath(url: string): string {
    const name =
      basename(url.replace(/[/\\]+$/, ""))
        .replace(/\.git$/, "")
        .replace(/[^A-Za-z0-9._-]/g, "_") || "repo";
    const hash = createHash("sha256").update(url).digest("hex").slice(0, 12);
    return join(this.reposDir, `${name.slice(0, 40)}-${hash}`);
  }

  private async cloneOrFetch(url: string, clone: string): Promise<void> {
    if (existsSync(join(clone, ".git"))) {
      await git(["fetch", "--prune", "origin"], { cwd: clone, env: this.env });
      return;
    }
    await rm(clone, { recursive: true, force: true });
    try {
      await git(["clone", "--no-checkout", "--", url, clone], { env: this.env });
    } catch (error) {
      throw new RepositoryError(`Could not clone ${url}: ${(error as Error).message}`);
    }
  }

  private async base(clone: string, repository: Repository): Promise<string> {
    const ref = repository.branch === undefined ? "origin/HEAD" : `origin/${repository.branch}`;
    const commit = await gitMaybe(["rev-parse", "--verify", "-q", `${ref}^{commit}`], { cwd: clone, env: this.env });
    if (commit) return commit;
    throw new RepositoryError(
      repository.branch === undefined
        ? `${repository.url} has no default branch to start from`
        : `${repository.url} has no branch ${repository.branch}`,
    );
  }

  private async removeOldWorktree(clone: string, path: string): Promise<void> {
    if (existsSync(path)) {
      await gitMaybe(["worktree", "remove", "--force", path], { cwd: clone, env: this.env });
      await rm(path, { recursive: true, force: true });
    }
    await git(["worktree", "prune"], { cwd: clone, env: this.env });
  }

  /** `name`, or `name-2`, `name-3`… when an earlier task on the same issue already made that branch. */
  private async freeBranchName(clone: string, name: string): Promise<string> {
    for (let suffix = 1; ; suffix++) {
      const candidate = suffix === 1 ? name : `${name}-${suffix}`;
      const taken = await gitMaybe(["rev-parse", "--verify", "-q", `refs/heads/${candidate}`], {
        cwd: clone,
        env: this.env,
      });
      if (!taken) return candidate;
    }
  }

  private serial<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(key) ?? Promise.resolve();
    const next = previous.then(work, work);
    this.queues.set(
      key,
      next.catch(() => {}),
    );
    return next;
  }
}

/** `agent/<issue identifier>-<attempt>`, with what git refuses in a branch name made safe. */
export function agentBranchName(issueIdentifier: string, attempt: number): string {
  const safe = issueIdentifier.replace(/[^A-Za-z0-9._-]/g, "-").replace(/^[-.]+|[-.]+$/g, "") || "issue";
  return `agent/${safe}-${attempt}`;
}
