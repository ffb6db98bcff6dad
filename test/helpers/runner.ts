// Runs one assignment through the runner's real TaskRun (real processes, real folders, real git), reading what it
// reports through the TaskReporter seam instead of the runner API.
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { OfficialEvent } from "../../src/runner/agui.ts";
import { scrubbedEnvironment } from "../../src/runner/env.ts";
import type { Assignment } from "../../src/runner/protocol.ts";
import { Repositories } from "../../src/runner/repos.ts";
import type { LocalRuntime } from "../../src/runner/runtimes.ts";
import { type TaskEnd, TaskRun } from "../../src/runner/task-run.ts";
import { ensureRunnerDirs, type RunnerDirs, runnerDirs } from "../../src/runner/workdir.ts";

export const RUNNER_TOKEN = "apr_runner-secret-never-for-a-cli";
export const TASK_TOKEN = "apt_task-token-for-this-task";

export function assignmentFor(overrides: Partial<Assignment> & { prompt: string }): Assignment {
  return {
    task: { id: randomUUID() },
    run_id: randomUUID(),
    runtime_id: randomUUID(),
    attempt: 1,
    agent: { id: randomUUID(), name: "Coder", runtime_config: {} },
    issue: { id: randomUUID(), identifier: "ENG-1" },
    token: TASK_TOKEN,
    platform: { url: "http://127.0.0.1:9/", mcp_url: "http://127.0.0.1:9/mcp" },
    resume: null,
    ...overrides,
  };
}

interface RecordedRun {
  end: TaskEnd;
  events: OfficialEvent[];
  sessions: { sessionId: string; workDir: string }[];
}

export class RunnerHarness {
  readonly dirs: RunnerDirs;
  readonly repos: Repositories;
  /** The runner's HOME: where the fake CLIs keep their sessions. */
  readonly home: string;

  constructor(
    readonly runnerEnv: Record<string, string | undefined> = {},
    readonly withheld: string[] = [],
  ) {
    const root = mkdtempSync(join(tmpdir(), "runner-dir-"));
    this.home = join(root, "home");
    this.dirs = runnerDirs(join(root, "runner"));
    this.repos = new Repositories(this.dirs.repos, this.baseEnv());
  }

  baseEnv(): Record<string, string> {
    const env = { PATH: process.env.PATH, HOME: this.home, ...this.runnerEnv };
    return scrubbedEnvironment(env, { runnerToken: RUNNER_TOKEN, withheld: this.withheld });
  }

  /** Starts the task; `run` resolves with what it reported, `task` lets a test stop it. */
  async start(
    runtime: LocalRuntime,
    assignment: Assignment,
    options: { silenceMs?: number; killGraceMs?: number } = {},
  ): Promise<{ task: TaskRun; run: Promise<RecordedRun>; events: OfficialEvent[] }> {
    await ensureRunnerDirs(this.dirs);
    const events: OfficialEvent[] = [];
    const sessions: RecordedRun["sessions"] = [];
    const task = new TaskRun(
      assignment,
      runtime,
      {
        dirs: this.dirs,
        repos: this.repos,
        baseEnv: this.baseEnv(),
        silenceMs: options.silenceMs ?? 60_000,
        ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
      },
      { event: (event) => events.push(event), session: (sessionId, workDir) => sessions.push({ sessionId, workDir }) },
    );
    const run = task.run().then((end) => ({ end, events, sessions }));
    return { task, run, events };
  }

  async run(runtime: LocalRuntime, assignment: Assignment, options: { silenceMs?: number } = {}) {
    return (await this.start(runtime, assignment, options)).run;
  }
}

export function cliRuntime(kind: "claude" | "codex", bin: string): LocalRuntime {
  return { name: kind, kind, command: join(bin, kind), tags: [] };
}

/** Waits for `check` to hold, polling: for effects outside this process (a file a CLI writes). */
/** What a fake CLI reported (`FAKE: report <file>`), one entry per start. */
export function reportsOf(file: string): any[] {
  return readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
}

/** The report of the only start of a fake CLI. */
export function reportOf(file: string): any {
  const reports = reportsOf(file);
  if (reports.length !== 1) throw new Error(`${file}: the CLI started ${reports.length} times`);
  return reports[0];
}
