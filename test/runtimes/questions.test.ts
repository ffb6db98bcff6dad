// A runner's agent CLI asks a person through the platform's MCP tools (spec control.md §3): ask_human parks the task
// in waiting_input, the runner ends the CLI, and once a member answers the next assignment resumes the CLI's session
// with the answer. A real `agent-platform runner` process and the fake claude, against a real server.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runBin, stopBins } from "../helpers/bin.ts";
import { testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { fakeCliBin } from "../helpers/fake-clis/index.ts";
import { readRunEvents, taskReaching } from "../work/helpers.ts";
import { assignIssue, createBoundAgent, type RuntimeFixture, startRuntimeFixture } from "./helpers.ts";

const scratch = mkdtempSync(join(tmpdir(), "runner-questions-"));
const fakeBin = fakeCliBin(["claude"]);
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  rmSync(fakeBin, { recursive: true, force: true });
});

describe.each(testDialects)("a runner's CLI asks a person (%s)", (dialect) => {
  let f: RuntimeFixture;
  beforeAll(async () => {
    f = await startRuntimeFixture(dialect, { env: { TASK_LEASE_MS: "3000", TASK_RETRY_BASE_MS: "50" } });
  });
  afterAll(() => f.close());
  afterEach(() => stopBins());

  it("ask_human through MCP parks the task; the answer resumes the CLI's session in a next run", async () => {
    const dir = mkdtempSync(join(scratch, "runner-"));
    const runner = runBin(
      ["runner", "--url", f.t.url, "--token", f.runnerToken, "--dir", dir, "--name", "asker", "--tags", "ask"],
      { env: { PATH: `${fakeBin}:${process.env.PATH}`, HOME: join(dir, "home") } },
    );
    await runner.printed(/registered with/);
    const agent = await createBoundAgent(f, [{ kind: "claude", tags: ["ask"] }]);
    const issue = await assignIssue(f, agent.id, {
      title: "Paint the fence",
      description: "FAKE: ask Which colour? | Teal | Red",
    });

    const waiting = await taskReaching(f, issue.id, ["waiting_input"], 20_000);
    const list = (await f.api.get(`workspaces/${f.ws}/questions?status=open`, { token: f.member.token })).body;
    const question = list.find((each: { task_id: string }) => each.task_id === waiting.id);
    expect(question).toMatchObject({
      run_id: waiting.run_id,
      agent_id: agent.id,
      issue_id: issue.id,
      question: "Which colour?",
      options: ["Teal", "Red"],
      multiple: false,
      status: "open",
    });
    // The CLI run ended: the runner stopped it (nothing holds the task), and its run waits.
    await runner.printed(new RegExp(`task ${waiting.id} .* after`));
    const row = await f.t.db.selectFrom("tasks").selectAll().where("id", "=", waiting.id).executeTakeFirstOrThrow();
    expect([row.status, row.lease_owner, row.session_id !== null]).toEqual(["waiting_input", null, true]);
    const firstRun = (await f.api.get(`workspaces/${f.ws}/runs/${waiting.run_id}`, { token: f.member.token })).body;
    expect(firstRun.status).toBe("waiting_input");
    // The task token died with the run: nothing more is done as the agent meanwhile.
    expect(await commentsOf(issue.id)).toEqual([]);

    const answered = await f.api.post(
      `workspaces/${f.ws}/questions/${question.id}/answer`,
      { answer: "Teal" },
      { token: f.member.token },
    );
    expect(answered.status).toBe(200);
    const done = await taskReaching(f, issue.id, ["succeeded", "failed"], 20_000);
    expect(done).toMatchObject({ id: waiting.id, status: "succeeded", attempt: 1 });
    expect(done.run_id).not.toBe(waiting.run_id);
    const [comment] = await commentsOf(issue.id);
    expect(comment?.content).toMatch(new RegExp(`^Resumed session ${row.session_id}\\. .*\\(heard: Teal\\)$`));

    const runs = (await f.api.get(`workspaces/${f.ws}/tasks/${waiting.id}/runs`, { token: f.member.token })).body;
    expect(runs.map((run: { status: string }) => run.status)).toEqual(["succeeded", "succeeded"]);
    const first = (await readRunEvents(f, waiting.run_id)).frames;
    const names = first.map((frame) => (frame.event === "CUSTOM" ? `CUSTOM ${frame.data.name}` : frame.event));
    expect(names).toEqual(expect.arrayContaining(["CUSTOM question_asked", "CUSTOM question_answered"]));
    expect(names.at(-1)).toBe("RUN_FINISHED");
  });

  const commentsOf = async (issueId: string) =>
    (await f.api.get(`workspaces/${f.ws}/issues/${issueId}/comments`, { token: f.member.token })).body as {
      content: string;
    }[];

  it("ask_human is a task token's tool only: an API key's MCP caller does not have it", async () => {
    const key = (await f.api.post(`workspaces/${f.ws}/api-keys`, { name: "mcp" }, { token: f.owner.token })).body
      .key as string;
    const listed = await eventually(async () => {
      const response = await f.api.post(
        "/mcp",
        { jsonrpc: "2.0", id: 1, method: "tools/list" },
        { headers: { "x-api-key": key, accept: "application/json, text/event-stream" } },
      );
      return response.status === 200 && response.body;
    }, "tools/list");
    const names = listed.result.tools.map((tool: { name: string }) => tool.name);
    expect(names).toContain("create_issue");
    expect(names).not.toContain("ask_human");
  });
});
