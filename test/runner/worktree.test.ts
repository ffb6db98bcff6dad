import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeCliBin } from "../helpers/fake-clis/index.ts";
import { assignmentFor, cliRuntime, RunnerHarness } from "../helpers/runner.ts";

const bin = fakeCliBin(["claude"]);
const scratch = mkdtempSync(join(tmpdir(), "runner-worktree-"));
const origin = join(scratch, "origin.git");
const claude = cliRuntime("claude", bin);

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", ...args], {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  }).trim();
}

beforeAll(() => {
  // A bare repository with `main` (README.md, and an AGENTS.md of its own) and `release`.
  execFileSync("git", ["init", "--bare", "--initial-branch=main", origin]);
  const seed = join(scratch, "seed");
  git(scratch, "clone", origin, seed);
  writeFileSync(join(seed, "README.md"), "# Shop\n");
  writeFileSync(join(seed, "AGENTS.md"), "Run npm test before committing.\n");
  git(seed, "add", ".");
  git(seed, "commit", "-m", "Start");
  git(seed, "push", "origin", "HEAD:main");
  git(seed, "checkout", "-b", "release");
  writeFileSync(join(seed, "CHANGELOG.md"), "1.0\n");
  git(seed, "add", ".");
  git(seed, "commit", "-m", "Release 1.0");
  git(seed, "push", "origin", "release");
});
afterAll(() => {
  rmSync(bin, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

describe("a task of an agent that names a repository", () => {
  const harness = new RunnerHarness();

  it("works in its own git worktree on a new branch agent/<issue>-<attempt>, reported on complete with the agent's commit", async () => {
    const assignment = assignmentFor({
      prompt: "# ENG-21 Add a feature\nFAKE: commit feature.txt\n",
      attempt: 2,
      issue: { id: "i-21", identifier: "ENG-21" },
      agent: { id: "a-1", name: "Coder", runtime_config: { repository: { url: origin } } },
    });
    const { end } = await harness.run(claude, assignment);
    expect(end).toMatchObject({ outcome: "complete", body: { branch: "agent/ENG-21-2" } });

    const workDir = join(harness.dirs.work, assignment.task.id);
    expect(git(workDir, "branch", "--show-current")).toBe("agent/ENG-21-2");
    expect(git(workDir, "log", "--format=%s", "main..HEAD")).toBe("Add feature.txt");
    // The brief is in AGENTS.md and CLAUDE.md, the repository's own AGENTS.md text kept, and none of it is committed
    // or shows as a change.
    const agents = readFileSync(join(workDir, "AGENTS.md"), "utf8");
    expect(agents.startsWith("Run npm test before committing.")).toBe(true);
    expect(agents.endsWith(assignment.prompt)).toBe(true);
    expect(readFileSync(join(workDir, "CLAUDE.md"), "utf8")).toBe(assignment.prompt);
    expect(git(workDir, "show", "--name-only", "--format=", "HEAD")).toBe("feature.txt");
    expect(git(workDir, "status", "--porcelain")).toBe("");
  });

  it("starts from the branch the agent names, in the same clone, and reports no branch when the agent left no commit", async () => {
    const assignment = assignmentFor({
      prompt: "# ENG-22 Look at the release\n",
      issue: { id: "i-22", identifier: "ENG-22" },
      agent: { id: "a-1", name: "Coder", runtime_config: { repository: { url: origin, branch: "release" } } },
    });
    const { end } = await harness.run(claude, assignment);
    expect(end).toMatchObject({ outcome: "complete", body: { output: "Worked on: # ENG-22 Look at the release" } });
    expect(end.outcome === "complete" && end.body.branch).toBeUndefined();

    const workDir = join(harness.dirs.work, assignment.task.id);
    expect(git(workDir, "branch", "--show-current")).toBe("agent/ENG-22-1");
    expect(readFileSync(join(workDir, "CHANGELOG.md"), "utf8")).toBe("1.0\n");
    expect(readdirSync(harness.dirs.repos)).toHaveLength(1); // one clone per URL, shared by the tasks
  });

  it("a later task on the same issue and attempt gets a branch of its own", async () => {
    const repository = { repository: { url: origin } };
    const first = assignmentFor({
      prompt: "# ENG-23\nFAKE: commit one.txt\n",
      issue: { id: "i-23", identifier: "ENG-23" },
      agent: { id: "a-1", name: "Coder", runtime_config: repository },
    });
    const second = { ...first, task: { id: `${first.task.id}-b` }, prompt: "# ENG-23 again\nFAKE: commit two.txt\n" };
    expect((await harness.run(claude, first)).end).toMatchObject({ body: { branch: "agent/ENG-23-1" } });
    expect((await harness.run(claude, second)).end).toMatchObject({ body: { branch: "agent/ENG-23-1-2" } });
  });

  it("reports the branch the agent pushed", async () => {
    const assignment = assignmentFor({
      prompt: "# ENG-25\nFAKE: commit pushed.txt\nFAKE: push\n",
      issue: { id: "i-25", identifier: "ENG-25" },
      agent: { id: "a-1", name: "Coder", runtime_config: { repository: { url: origin } } },
    });
    expect((await harness.run(claude, assignment)).end).toMatchObject({ body: { branch: "agent/ENG-25-1" } });
    expect(git(scratch, "--git-dir", origin, "log", "--format=%s", "agent/ENG-25-1", "-1")).toBe("Add pushed.txt");
  });

  it("fails without retry when the repository has no such branch", async () => {
    const { end } = await harness.run(
      claude,
      assignmentFor({
        prompt: "# ENG-24\n",
        agent: { id: "a-1", name: "Coder", runtime_config: { repository: { url: origin, branch: "nope" } } },
      }),
    );
    expect(end).toEqual({ outcome: "fail", body: { error: `${origin} has no branch nope`, retryable: false } });
  });
});
