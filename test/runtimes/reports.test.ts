// A runner's reports (spec runtimes.md §2): events stored as the run's and replayed with Last-Event-ID, idempotent by
// seq; the session saved for the next task; complete posting the output once; fail retried with backoff; 409 for a
// task the runner does not hold; the heartbeat's cancel list.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDialects } from "../helpers/databases.ts";
import { readRunEvents, taskReaching } from "../work/helpers.ts";
import {
  assignIssue,
  claimAll,
  createBoundAgent,
  FakeRunner,
  type RuntimeFixture,
  startRuntimeFixture,
} from "./helpers.ts";

const text = (messageId: string, delta: string, from: number) => [
  { seq: from, type: "TEXT_MESSAGE_START", messageId, role: "assistant" },
  { seq: from + 1, type: "TEXT_MESSAGE_CONTENT", messageId, delta },
  { seq: from + 2, type: "TEXT_MESSAGE_END", messageId },
];

describe.each(testDialects)("runner reports (%s)", (dialect) => {
  let f: RuntimeFixture;
  let runner: FakeRunner;
  beforeAll(async () => {
    f = await startRuntimeFixture(dialect, { env: { TASK_RETRY_BASE_MS: "50" } });
    runner = new FakeRunner(f);
    await runner.register([{ name: "sh", kind: "command", max_concurrent_tasks: 10 }]);
  });
  afterAll(() => f.close());

  const commentsOf = async (issueId: string) =>
    (await f.api.get(`workspaces/${f.ws}/issues/${issueId}/comments`, { token: f.member.token })).body as {
      author_type: string;
      content: string;
    }[];

  it("events become the run's, replayable with Last-Event-ID; complete posts the output once", async () => {
    const agent = await createBoundAgent(f);
    const issue = await assignIssue(f, agent.id);
    const [assignment] = await claimAll(runner, 1);
    const path = `tasks/${assignment.task.id}/events`;
    const batch = [
      ...text("m1", "Looking", 1),
      { seq: 4, type: "TOOL_CALL_START", toolCallId: "c1", toolCallName: "Bash" },
      { seq: 5, type: "TOOL_CALL_ARGS", toolCallId: "c1", delta: '{"command":"ls"}' },
      { seq: 6, type: "TOOL_CALL_END", toolCallId: "c1" },
      { seq: 7, type: "TOOL_CALL_RESULT", toolCallId: "c1", messageId: "r1", content: "README.md" },
    ];
    expect((await runner.call(path, { events: batch })).body).toEqual({ cancel: false });
    expect((await runner.call(path, { events: batch.slice(2) })).body).toEqual({ cancel: false });
    const gap = await runner.call(path, { events: [{ seq: 9, type: "CUSTOM", name: "x", value: 1 }] });
    expect(gap.status).toBe(422);
    const runStart = await runner.call(path, { events: [{ seq: 8, type: "RUN_FINISHED" }] });
    expect(runStart.status).toBe(422);
    const injected = await runner.call(path, { events: [{ seq: 8, type: "CUSTOM\ndata: forged" }] });
    expect(injected.status).toBe(422);
    expect((await runner.call(path, { events: text("m2", "Done: all good", 8) })).status).toBe(200);
    await runner.call(`tasks/${assignment.task.id}/session`, { session_id: "sess-1", work_dir: "/w/1" });
    const done = await runner.call(`tasks/${assignment.task.id}/complete`, {
      output: "All good",
      usage: { input_tokens: 10, output_tokens: 5, cost_usd: 0.01 },
      session_id: "sess-1",
    });
    expect(done.status).toBe(200);
    const again = await runner.call(`tasks/${assignment.task.id}/complete`, { output: "All good" });
    expect(again.status).toBe(200);
    expect(await commentsOf(issue.id)).toEqual([
      expect.objectContaining({ author_type: "agent", content: "All good" }),
    ]);
    const task = await taskReaching(f, issue.id);
    expect(task).toMatchObject({ status: "succeeded", attempt: 1 });
    const run = (await f.api.get(`workspaces/${f.ws}/runs/${assignment.run_id}`, { token: f.member.token })).body;
    // The runner's own cost is the run's; it counts in the workspace's usage.
    expect(run).toMatchObject({ status: "succeeded", usage: { input_tokens: 10, output_tokens: 5, cost_usd: 0.01 } });
    const usage = (await f.api.get(`workspaces/${f.ws}/usage?group_by=issue`, { token: f.member.token })).body;
    expect(usage.find((row: { key: string }) => row.key === issue.id)).toMatchObject({ runs: 1, cost_usd: 0.01 });
    const replay = await readRunEvents(f, assignment.run_id);
    expect(replay.frames.map((frame) => frame.event)).toEqual([
      "RUN_STARTED",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_END",
      "TOOL_CALL_START",
      "TOOL_CALL_ARGS",
      "TOOL_CALL_END",
      "TOOL_CALL_RESULT",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_END",
      "RUN_FINISHED",
    ]);
    expect(replay.frames.map((frame) => frame.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(replay.frames[0]?.data).toMatchObject({ threadId: assignment.task.id, runId: assignment.run_id });
    const resumed = await readRunEvents(f, assignment.run_id, { lastEventId: 8 });
    expect(resumed.frames.map((frame) => frame.id)).toEqual([9, 10, 11, 12]);
    expect(resumed.frames[1]?.data.delta).toBe("Done: all good");
    expect((await runner.call(path, { events: text("m3", "late", 11) })).status).toBe(409);
    expect((await runner.call(`tasks/${assignment.task.id}/fail`, { error: "x", retryable: true })).status).toBe(409);
    expect((await f.api.get(`workspaces/${f.ws}/issues/${issue.id}`, { token: assignment.token })).status).toBe(401);
  });

  it("complete takes the run's last events (where register says so), stored once before its end", async () => {
    const registered = await runner.register([{ name: "sh", kind: "command", max_concurrent_tasks: 10 }]);
    expect(registered.complete_events).toBe(true);
    const agent = await createBoundAgent(f);
    const issue = await assignIssue(f, agent.id);
    const [assignment] = await claimAll(runner, 1);
    const path = `tasks/${assignment.task.id}`;
    expect((await runner.call(`${path}/events`, { events: text("m1", "Looking", 1) })).status).toBe(200);
    const gap = await runner.call(`${path}/complete`, { output: "Done", events: text("m2", "Done", 5) });
    expect(gap.status).toBe(422);
    // Events already stored come again (a re-sent batch): kept once.
    const events = [...text("m1", "Looking", 1), ...text("m2", "Done", 4)];
    expect((await runner.call(`${path}/complete`, { output: "Done", events })).status).toBe(200);
    expect((await runner.call(`${path}/complete`, { output: "Done", events })).status).toBe(200);
    expect(await commentsOf(issue.id)).toEqual([expect.objectContaining({ author_type: "agent", content: "Done" })]);
    const replay = await readRunEvents(f, assignment.run_id);
    expect(replay.frames.map((frame) => frame.event)).toEqual([
      "RUN_STARTED",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_END",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_END",
      "RUN_FINISHED",
    ]);
    expect(replay.frames[5]?.data.delta).toBe("Done");
    expect(await taskReaching(f, issue.id)).toMatchObject({ status: "succeeded", attempt: 1 });
  });

  it("no comment of the output when the run commented through its tools", async () => {
    const agent = await createBoundAgent(f);
    const issue = await assignIssue(f, agent.id);
    const [assignment] = await claimAll(runner, 1);
    await f.api.post(
      `workspaces/${f.ws}/issues/${issue.id}/comments`,
      { content: "Fixed in #12" },
      { token: assignment.token },
    );
    await runner.call(`tasks/${assignment.task.id}/complete`, { output: "I commented" });
    expect((await commentsOf(issue.id)).map((comment) => comment.content)).toEqual(["Fixed in #12"]);
  });

  it("fail is retried with backoff while retryable and attempts remain; the retry resumes the session", async () => {
    const agent = await createBoundAgent(f);
    const issue = await assignIssue(f, agent.id);
    const [first] = await claimAll(runner, 1);
    await runner.call(`tasks/${first.task.id}/session`, { session_id: "s-first", work_dir: "/w/first" });
    expect(
      (await runner.call(`tasks/${first.task.id}/fail`, { error: "claude crashed", retryable: true })).status,
    ).toBe(200);
    expect(
      (await runner.call(`tasks/${first.task.id}/fail`, { error: "claude crashed", retryable: true })).status,
    ).toBe(200);
    const queued = (await f.api.get(`workspaces/${f.ws}/tasks/${first.task.id}`, { token: f.member.token })).body;
    expect(queued).toMatchObject({ status: "queued", attempt: 1, error: "claude crashed" });
    const [second] = await claimAll(runner, 1);
    expect(second).toMatchObject({ attempt: 2, resume: { session_id: "s-first", work_dir: "/w/first" } });
    expect(second.run_id).not.toBe(first.run_id);
    const failedRun = await readRunEvents(f, first.run_id);
    expect(failedRun.frames.at(-1)).toMatchObject({ event: "RUN_ERROR", data: { message: "claude crashed" } });
    await runner.call(`tasks/${second.task.id}/fail`, { error: "bad config", retryable: false });
    expect(await taskReaching(f, issue.id)).toMatchObject({ status: "failed", attempt: 2, error: "bad config" });
  });

  it("a comment while the CLI runs queues the next task on complete, resuming the session", async () => {
    const agent = await createBoundAgent(f);
    const issue = await assignIssue(f, agent.id);
    const [first] = await claimAll(runner, 1);
    await runner.call(`tasks/${first.task.id}/session`, { session_id: "s-1", work_dir: "/w/s-1" });
    await f.api.post(
      `workspaces/${f.ws}/issues/${issue.id}/comments`,
      { content: "Also the footer" },
      { token: f.member.token },
    );
    await runner.call(`tasks/${first.task.id}/complete`, { output: "Header fixed" });
    const [next] = await claimAll(runner, 1);
    expect(next.task.id).not.toBe(first.task.id);
    expect(next.resume).toEqual({ session_id: "s-1", work_dir: "/w/s-1" });
    expect(next.prompt).toContain("Also the footer");
    await runner.call(`tasks/${next.task.id}/complete`, { output: "Footer fixed" });
  });

  it("a cancelled task is in the next heartbeat's cancel list once, events answer cancel, endings are 409", async () => {
    const agent = await createBoundAgent(f);
    const issue = await assignIssue(f, agent.id);
    const [assignment] = await claimAll(runner, 1);
    await f.api.post(`workspaces/${f.ws}/tasks/${assignment.task.id}/cancel`, {}, { token: f.member.token });
    expect((await runner.call("heartbeat")).body).toEqual({ cancel: [assignment.task.id] });
    expect((await runner.call("heartbeat")).body).toEqual({ cancel: [] });
    expect((await runner.call(`tasks/${assignment.task.id}/events`, { events: text("m", "x", 1) })).body).toEqual({
      cancel: true,
    });
    const complete = await runner.call(`tasks/${assignment.task.id}/complete`, { output: "x" });
    expect(complete.status).toBe(409);
    expect(complete.body.detail).toMatch(/does not hold/);
    expect((await runner.call(`tasks/${assignment.task.id}/session`, { session_id: "s", work_dir: "/w" })).status).toBe(
      409,
    );
    const run = (await f.api.get(`workspaces/${f.ws}/runs/${assignment.run_id}`, { token: f.member.token })).body;
    expect(run.status).toBe("cancelled");
    expect(await commentsOf(issue.id)).toEqual([]);
  });

  it("a deleted agent's task is in the cancel list; a task another runner holds is a 409", async () => {
    const agent = await createBoundAgent(f);
    await assignIssue(f, agent.id);
    const [assignment] = await claimAll(runner, 1);
    const other = new FakeRunner(f);
    await other.register([{ name: "sh", kind: "command" }]);
    expect((await other.call(`tasks/${assignment.task.id}/complete`, { output: "mine" })).status).toBe(409);
    expect((await other.call(`tasks/${assignment.task.id}/events`, { events: text("m", "x", 1) })).status).toBe(409);
    expect((await other.call("tasks/not-an-id/fail", { error: "x", retryable: true })).status).toBe(409);
    expect((await f.api.delete(`workspaces/${f.ws}/agents/${agent.id}`, { token: f.owner.token })).status).toBe(204);
    expect((await runner.call("heartbeat")).body).toEqual({ cancel: [assignment.task.id] });
  });
});
