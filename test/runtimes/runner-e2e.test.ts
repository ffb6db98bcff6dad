// Real `agent-platform runner` processes against a real server (spec runtimes.md §2-4, issue 27's tests): a command
// runtime and the fake claude and codex doing tasks end to end, two runners never running one task, a runner killed
// mid-task (retried elsewhere after the lease, answered once), a revoked token stopping its runner, task tokens dying
// with their task, fallback order, cancel ending the CLI's whole process group, and replay with Last-Event-ID.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { processAlive } from "../../src/runner/process-group.ts";
import { type BinProcess, runBin, stopBins } from "../helpers/bin.ts";
import { testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { fakeCliBin } from "../helpers/fake-clis/index.ts";
import { readRunEvents, taskReaching, tasksOf } from "../work/helpers.ts";
import { assignIssue, createBoundAgent, type RuntimeFixture, startRuntimeFixture } from "./helpers.ts";

const scratch = mkdtempSync(join(tmpdir(), "runner-e2e-"));
const fakeBin = fakeCliBin(["claude", "codex"]);
const leftovers: number[] = [];
afterAll(() => {
  for (const pid of leftovers) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {}
  }
  rmSync(scratch, { recursive: true, force: true });
  rmSync(fakeBin, { recursive: true, force: true });
});

let scriptCount = 0;
function script(body: string): string {
  const file = join(scratch, `script-${++scriptCount}.sh`);
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe.each(testDialects)("runners end to end (%s)", (dialect) => {
  let f: RuntimeFixture;
  beforeAll(async () => {
    f = await startRuntimeFixture(dialect, { env: { TASK_LEASE_MS: "3000", TASK_RETRY_BASE_MS: "50" } });
  });
  afterAll(() => f.close());
  afterEach(() => stopBins());

  async function startRunner(args: string[], options: { token?: string; path?: string } = {}): Promise<BinProcess> {
    const dir = mkdtempSync(join(scratch, "runner-"));
    const runner = runBin(
      ["runner", "--url", f.t.url, "--token", options.token ?? f.runnerToken, "--dir", dir, ...args],
      { env: { PATH: options.path ?? (process.env.PATH as string), HOME: join(dir, "home") } },
    );
    await runner.printed(/registered with/);
    return runner;
  }

  const commentsOf = async (issueId: string) =>
    (await f.api.get(`workspaces/${f.ws}/issues/${issueId}/comments`, { token: f.member.token })).body as {
      author_type: string;
      author_id: string;
      content: string;
    }[];

  it("a command runtime does a task: its answer is the agent's comment, its run replays with Last-Event-ID", async () => {
    const tokenFile = join(scratch, `${dialect}-token`);
    const answer = script(
      [
        "cat > /dev/null",
        `echo "$AGENT_PLATFORM_TOKEN" > '${tokenFile}'`,
        'status=$(curl -s -o /dev/null -w "%{http_code}" -H "Authorization: Bearer $AGENT_PLATFORM_TOKEN" ' +
          '"$AGENT_PLATFORM_URL/api/v1/workspaces/")',
        'echo "Answer for $AGENT_PLATFORM_ISSUE (the API said $status)"',
      ].join("\n"),
    );
    const runner = await startRunner(["--name", "cmd", "--runtime", `answer=sh ${answer}`, "--tags", "e2e-cmd"]);
    const agent = await createBoundAgent(f, [{ kind: "command", tags: ["e2e-cmd"] }]);
    const issue = await assignIssue(f, agent.id);
    const task = await taskReaching(f, issue.id);
    expect(task).toMatchObject({ status: "succeeded", attempt: 1 });
    expect(await commentsOf(issue.id)).toEqual([
      expect.objectContaining({
        author_type: "agent",
        author_id: agent.id,
        content: `Answer for ${issue.identifier} (the API said 200)`,
      }),
    ]);
    const replay = await readRunEvents(f, task.run_id);
    const types = replay.frames.map((frame) => frame.event);
    expect(types[0]).toBe("RUN_STARTED");
    expect(types.at(-1)).toBe("RUN_FINISHED");
    expect(types).toContain("TEXT_MESSAGE_CONTENT");
    const tail = await readRunEvents(f, task.run_id, { lastEventId: 2 });
    expect(tail.frames.map((frame) => frame.id)).toEqual(replay.frames.slice(2).map((frame) => frame.id));
    const token = readFileSync(tokenFile, "utf8").trim();
    expect(token).toMatch(/^apt_/);
    expect((await f.api.get(`workspaces/${f.ws}/issues/${issue.id}`, { token })).status).toBe(401);
    // Ctrl-C once its work is done: it deregisters and exits.
    runner.child.kill("SIGINT");
    expect(await runner.exited).toBe(0);
  });

  it("the fake claude and codex work tasks as their agents, with tool calls and reasoning in the run", async () => {
    await startRunner(["--name", "clis", "--tags", "e2e-cli", "--max-tasks", "2"], {
      path: `${fakeBin}:${process.env.PATH}`,
    });
    const claude = await createBoundAgent(f, [{ kind: "claude", tags: ["e2e-cli"] }]);
    const codex = await createBoundAgent(f, [{ kind: "codex", tags: ["e2e-cli"] }]);
    const issues = [await assignIssue(f, claude.id), await assignIssue(f, codex.id)];
    for (const issue of issues) {
      const task = await taskReaching(f, issue.id);
      expect(task.status).toBe("succeeded");
      const [comment] = await commentsOf(issue.id);
      expect(comment?.content).toMatch(/Worked on: /);
      const types = (await readRunEvents(f, task.run_id)).frames.map((frame) => frame.event);
      expect(types).toContain("TOOL_CALL_START");
      expect(types.at(-1)).toBe("RUN_FINISHED");
    }
    const run = (
      await f.api.get(`workspaces/${f.ws}/tasks/${(await tasksOf(f, issues[0]!.id))[0].id}/runs`, {
        token: f.member.token,
      })
    ).body;
    expect(run[0].model).toBe("claude:claude");
  });

  it("two runners never run one task: each is answered once", async () => {
    const work = script('cat > /dev/null\nsleep 0.2\necho "Done $AGENT_PLATFORM_TASK_ID"');
    for (const name of ["one", "two"]) {
      await startRunner(["--name", name, "--runtime", `work=sh ${work}`, "--tags", "e2e-pair", "--max-tasks", "4"]);
    }
    const agents = [];
    for (let index = 0; index < 4; index++) {
      agents.push(await createBoundAgent(f, [{ tags: ["e2e-pair"] }], { max_concurrent_tasks: 2 }));
    }
    const issues: { id: string }[] = [];
    for (let index = 0; index < 8; index++) issues.push(await assignIssue(f, agents[index % 4].id));
    for (const issue of issues) {
      const task = await taskReaching(f, issue.id);
      expect(task).toMatchObject({ status: "succeeded", attempt: 1 });
      const runs = (await f.api.get(`workspaces/${f.ws}/tasks/${task.id}/runs`, { token: f.member.token })).body;
      expect(runs).toHaveLength(1);
      expect((await commentsOf(issue.id)).map((comment) => comment.content)).toEqual([`Done ${task.id}`]);
    }
  });

  it("a runner killed mid-task: its CLI ends, the task is retried on another runner after its lease, answered once", async () => {
    const marker = join(scratch, `${dialect}-killed-once`);
    const pidFile = join(scratch, `${dialect}-killed-cli.pid`);
    const once = script(
      [
        "cat > /dev/null",
        `if [ ! -f '${marker}' ]; then touch '${marker}'; echo $$ > '${pidFile}'; exec sleep 600; fi`,
        'echo "Answered by the survivor"',
      ].join("\n"),
    );
    const doomed = await startRunner(["--name", "doomed", "--runtime", `once=sh ${once}`, "--tags", "e2e-kill"]);
    const agent = await createBoundAgent(f, [{ tags: ["e2e-kill"] }]);
    const issue = await assignIssue(f, agent.id);
    await eventually(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "", "the CLI to start");
    const cli = Number(readFileSync(pidFile, "utf8"));
    leftovers.push(cli);
    doomed.child.kill("SIGKILL");
    await doomed.exited;
    // Nothing the dead runner started goes on working in its checkout, unwatched.
    await eventually(() => !processAlive(cli), "the dead runner's CLI to end");
    await startRunner(["--name", "survivor", "--runtime", `once=sh ${once}`, "--tags", "e2e-kill"]);
    const task = await taskReaching(f, issue.id, ["succeeded", "failed"], 30_000);
    expect(task).toMatchObject({ status: "succeeded", attempt: 2 });
    const runs = (await f.api.get(`workspaces/${f.ws}/tasks/${task.id}/runs`, { token: f.member.token })).body;
    expect(runs.map((run: { status: string }) => run.status)).toEqual(["failed", "succeeded"]);
    expect((await commentsOf(issue.id)).map((comment) => comment.content)).toEqual(["Answered by the survivor"]);
  });

  it("a revoked runner token stops its runner", async () => {
    const created = await f.api.post(`workspaces/${f.ws}/runner-tokens`, { name: "revoked" }, { token: f.admin.token });
    const runner = await startRunner(["--name", "revoked", "--runtime", "x=cat"], { token: created.body.token });
    await f.api.delete(`workspaces/${f.ws}/runner-tokens/${created.body.id}`, { token: f.admin.token });
    expect(await runner.exited).toBe(1);
    expect(runner.output().stderr).toContain("The runner token was refused");
  });

  it("a runner an admin deleted registers again and goes on working", async () => {
    const work = script('cat > /dev/null\necho "Still here"');
    const runner = await startRunner(["--name", "phoenix", "--runtime", `work=sh ${work}`, "--tags", "e2e-again"]);
    const runners = async () =>
      ((await f.api.get(`workspaces/${f.ws}/runners`, { token: f.member.token })).body as any[]).filter(
        (each) => each.name === "phoenix",
      );
    const [first] = await runners();
    expect((await f.api.delete(`workspaces/${f.ws}/runners/${first.id}`, { token: f.admin.token })).status).toBe(204);
    await runner.printed(/registering again/);
    const [again] = await eventually(async () => {
      const found = await runners();
      return found.length === 1 && found;
    }, "the runner to register again");
    expect(again.id).not.toBe(first.id);
    const agent = await createBoundAgent(f, [{ tags: ["e2e-again"] }]);
    const issue = await assignIssue(f, agent.id);
    expect((await taskReaching(f, issue.id)).status).toBe("succeeded");
    expect((await commentsOf(issue.id)).map((comment) => comment.content)).toEqual(["Still here"]);
  });

  it("fallback pools honour their order: the preferred runner's slot first, the rest spill over", async () => {
    const release = join(scratch, `${dialect}-release-fallback`);
    const wait = script(`cat > /dev/null\nwhile [ ! -f '${release}' ]; do sleep 0.05; done\necho done`);
    await startRunner(["--name", "preferred", "--runtime", `pref=sh ${wait}`, "--tags", "e2e-pref"]);
    await startRunner(["--name", "spill", "--runtime", `spill=sh ${wait}`, "--tags", "e2e-spill", "--max-tasks", "4"]);
    const agent = await createBoundAgent(f, [{ tags: ["e2e-pref"] }, { tags: ["e2e-spill"] }], {
      max_concurrent_tasks: 5,
    });
    const issues: { id: string }[] = [];
    for (let index = 0; index < 3; index++) issues.push(await assignIssue(f, agent.id));
    const models = await eventually(async () => {
      const running = [];
      for (const issue of issues) {
        const [task] = await tasksOf(f, issue.id);
        if (task?.status !== "running") return undefined;
        running.push((await f.api.get(`workspaces/${f.ws}/runs/${task.run_id}`, { token: f.member.token })).body.model);
      }
      return running;
    }, "three running tasks");
    expect(models.sort()).toEqual(["command:pref", "command:spill", "command:spill"]);
    writeFileSync(release, "");
    for (const issue of issues) expect((await taskReaching(f, issue.id)).status).toBe("succeeded");
  });

  it("cancel ends the CLI's whole process group", async () => {
    const pids = join(scratch, `${dialect}-group.pids`);
    const group = script(`cat > /dev/null\nsleep 600 &\necho "$$ $!" > '${pids}'\nwait`);
    await startRunner(["--name", "group", "--runtime", `group=sh ${group}`, "--tags", "e2e-cancel"]);
    const agent = await createBoundAgent(f, [{ tags: ["e2e-cancel"] }]);
    const issue = await assignIssue(f, agent.id);
    const [cli, child] = (await eventually(
      () => existsSync(pids) && readFileSync(pids, "utf8").trim().split(" ").map(Number),
      "the CLI and its child to start",
    )) as number[];
    expect(alive(cli!) && alive(child!)).toBe(true);
    const [task] = await tasksOf(f, issue.id);
    await f.api.post(`workspaces/${f.ws}/tasks/${task.id}/cancel`, {}, { token: f.member.token });
    await eventually(() => !alive(cli!) && !alive(child!), "the process group to end", 8_000);
    const run = (await f.api.get(`workspaces/${f.ws}/runs/${task.run_id}`, { token: f.member.token })).body;
    expect(run.status).toBe("cancelled");
    expect(await commentsOf(issue.id)).toEqual([]);
  });
});
