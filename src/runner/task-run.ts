// One assignment worked by one agent CLI: the working directory (fresh, a git worktree, or the one of the session it
// resumes), the brief, the CLI started headless, its output turned into AG-UI events, and how it ended. What it
// reports goes through a TaskReporter, so the same run serves the runner API and a test that reads it.
import { existsSync, statSync } from "node:fs";
import { join, resolve, sep } from "node:path";
import { ADAPTERS } from "./adapters/index.ts";
import type { Adapter, CliOutcome } from "./adapters/types.ts";
import { type OfficialEvent, RunEventWriter } from "./agui.ts";
import type { CompleteBody, FailBody } from "./client.ts";
import { taskVariables } from "./env.ts";
import { CliProcess, lastLines, type ProcessEnd } from "./process.ts";
import { type Assignment, RepositorySchema } from "./protocol.ts";
import { agentBranchName, type Repositories, RepositoryError } from "./repos.ts";
import type { LocalRuntime } from "./runtimes.ts";
import { forgetSession, readSession, rememberSession } from "./sessions.ts";
import { installSkills } from "./skills.ts";
import { freshWorkDir, type RunnerDirs, removeSecretsDir, secretsDirOf, writeBriefs } from "./workdir.ts";

interface TaskReporter {
  event(event: OfficialEvent): void;
  /** The CLI's resume pointer, as soon as it is known. */
  session(sessionId: string, workDir: string): void;
}

export interface TaskContext {
  dirs: RunnerDirs;
  repos: Repositories;
  /** The runner's environment with its own credentials and withheld variables taken out. */
  baseEnv: Record<string, string>;
  silenceMs: number;
  killGraceMs?: number;
}

export type TaskEnd =
  | { outcome: "complete"; body: CompleteBody }
  | { outcome: "fail"; body: FailBody }
  /** Cancelled: the server wants nothing more about it. */
  | { outcome: "stopped" };

type StopReason = "cancelled" | "shutdown";

export class TaskRun {
  private stopReason: StopReason | undefined;
  private process: CliProcess | undefined;
  /** The assignment's prompt, with the Skills section when the CLI finds its skills by reading it. */
  private brief: string;

  constructor(
    private readonly assignment: Assignment,
    private readonly runtime: LocalRuntime,
    private readonly context: TaskContext,
    private readonly reporter: TaskReporter,
  ) {
    this.brief = assignment.prompt;
  }

  get taskId(): string {
    return this.assignment.task.id;
  }

  /** Ends the CLI's whole process group; `run` then resolves (a shutdown as a retryable failure). */
  async stop(reason: StopReason): Promise<void> {
    this.stopReason ??= reason;
    await this.process?.stop();
  }

  async run(): Promise<TaskEnd> {
    const adapter = ADAPTERS[this.runtime.kind];
    const secretsDir = secretsDirOf(this.context.dirs, this.taskId);
    try {
      const { workDir, resumeSessionId } = await this.prepare(adapter);
      if (this.stopReason !== undefined) return this.stoppedEnd();
      const skills = await installSkills({
        skills: this.assignment.skills,
        kind: this.runtime.kind,
        workDir,
        cacheDir: this.context.dirs.skillFiles,
        taskToken: this.assignment.token,
        env: this.context.baseEnv,
      });
      if (skills) this.brief = `${this.assignment.prompt}\n\n${skills}`;
      await writeBriefs(workDir, adapter.briefFiles, this.brief, this.context.baseEnv);
      const first = await this.runCli(adapter, workDir, secretsDir, resumeSessionId);
      // A session the CLI no longer has (its store was cleared, another machine's) would fail every retry the same
      // way: the CLI refused it before starting one, so the task starts a new session instead.
      if (!first.resumeRefused || this.stopReason !== undefined) return first.end;
      return (await this.runCli(adapter, workDir, secretsDir, undefined)).end;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { outcome: "fail", body: { error: message, retryable: !(error instanceof RepositoryError) } };
    } finally {
      await removeSecretsDir(secretsDir);
    }
  }

  /** The working directory: the resumed session's own (a CLI finds its session by folder), else a new one. */
  private async prepare(adapter: Adapter): Promise<{ workDir: string; resumeSessionId?: string }> {
    const { assignment, context } = this;
    const resume = assignment.resume;
    if (resume && this.isOurWorkDir(resume.work_dir) && existsSync(resume.work_dir)) {
      const resumable = adapter.resumes && (await readSession(resume.work_dir))?.kind === this.runtime.kind;
      return { workDir: resume.work_dir, ...(resumable ? { resumeSessionId: resume.session_id } : {}) };
    }
    const workDir = join(context.dirs.work, this.taskId);
    await forgetSession(workDir);
    const repository = assignment.agent.runtime_config?.repository;
    if (repository === undefined || repository === null) {
      await freshWorkDir(workDir);
      return { workDir };
    }
    const parsed = RepositorySchema.safeParse(repository);
    if (!parsed.success) throw new RepositoryError("runtime_config.repository must be {url, branch?}");
    await context.repos.worktree(
      parsed.data,
      workDir,
      agentBranchName(assignment.issue.identifier, assignment.attempt),
    );
    return { workDir };
  }

  /** A folder the server hands back is used only if it is one of this runner's working directories. */
  private isOurWorkDir(path: string): boolean {
    return resolve(path).startsWith(resolve(this.context.dirs.work) + sep);
  }

  private async runCli(
    adapter: Adapter,
    workDir: string,
    secretsDir: string,
    resumeSessionId: string | undefined,
  ): Promise<{ end: TaskEnd; resumeRefused: boolean }> {
    const { assignment, context, reporter } = this;
    const launch = await adapter.launch({
      command: this.runtime.command,
      workDir,
      secretsDir,
      prompt: this.brief,
      ...(context.baseEnv.PATH === undefined ? {} : { path: context.baseEnv.PATH }),
      mcpUrl: assignment.platform.mcp_url,
      taskToken: assignment.token,
      ...(resumeSessionId === undefined ? {} : { resumeSessionId }),
    });
    const env = {
      ...context.baseEnv,
      ...taskVariables({
        url: assignment.platform.url,
        taskToken: assignment.token,
        mcpUrl: assignment.platform.mcp_url,
        taskId: this.taskId,
        issueIdentifier: assignment.issue.identifier,
      }),
      ...launch.env,
      PWD: workDir,
    };
    const parser = adapter.parser(new RunEventWriter((event) => reporter.event(event)));
    let reportedSession: string | undefined;
    this.process = new CliProcess({
      file: launch.file,
      args: launch.args,
      shell: launch.shell === true,
      ...(launch.argv0 === undefined ? {} : { argv0: launch.argv0 }),
      cwd: workDir,
      env,
      input: this.brief,
      silenceMs: context.silenceMs,
      ...(context.killGraceMs === undefined ? {} : { killGraceMs: context.killGraceMs }),
      onLine: (line) => {
        parser.line(line);
        const sessionId = parser.sessionId;
        if (sessionId !== undefined && sessionId !== reportedSession) {
          reportedSession = sessionId;
          rememberSession(workDir, this.runtime.kind, sessionId);
          reporter.session(sessionId, workDir);
        }
      },
    });
    if (this.stopReason !== undefined) await this.process.stop();
    const end = await this.process.ended;
    const outcome = parser.finish();
    const resumeRefused =
      resumeSessionId !== undefined && end.reason === "exited" && end.code !== 0 && outcome.sessionId === undefined;
    return { end: await this.endOf(end, outcome, workDir), resumeRefused };
  }

  private async endOf(end: ProcessEnd, outcome: CliOutcome, workDir: string): Promise<TaskEnd> {
    const name = this.runtime.name;
    switch (end.reason) {
      case "stopped":
        return this.stoppedEnd();
      case "spawn-failed":
        return failed(`Could not start ${name}: ${end.message}`);
      case "silent":
        return failed(`${name} printed nothing for ${Math.round(end.silenceMs / 1000)} s (--silence-timeout): stopped`);
      case "exited": {
        if (end.code === 0 && outcome.error === undefined) return this.completed(outcome, workDir);
        const how = end.code === null ? `was killed by ${end.signal}` : `exited with code ${end.code}`;
        const detail = outcome.error ?? lastLines(end.stderrTail);
        return failed(detail === "" ? `${name} ${how}` : `${name} ${how}: ${detail}`);
      }
    }
  }

  private async completed(outcome: CliOutcome, workDir: string): Promise<TaskEnd> {
    const body: CompleteBody = { output: outcome.answer };
    if (outcome.usage !== undefined) body.usage = outcome.usage;
    if (outcome.sessionId !== undefined) body.session_id = outcome.sessionId;
    // A worktree's `.git` is a file; a folder the agent turned into a repository of its own has no branch of ours.
    if (statSync(join(workDir, ".git"), { throwIfNoEntry: false })?.isFile()) {
      const branch = await this.context.repos.branchToReport(workDir);
      if (branch !== undefined) body.branch = branch;
    }
    return { outcome: "complete", body };
  }

  private stoppedEnd(): TaskEnd {
    return this.stopReason === "shutdown"
      ? failed("The runner was stopped before the task ended")
      : { outcome: "stopped" };
  }
}

/** Every failure of the CLI itself (a crash, an API error, silence) may go better on another attempt. */
function failed(error: string): TaskEnd {
  return { outcome: "fail", body: { error, retryable: true } };
}
