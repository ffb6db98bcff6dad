// When a run goes wrong: failures outside the agent are retried with backoff, then the task fails with the error;
// a cancelled task stops its run at once, aborting the model request.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { activityOf } from "../helpers/platform.ts";
import {
  createAgent,
  createIssue,
  readRunEvents,
  startWorkFixture,
  taskReaching,
  type WorkFixture,
} from "./helpers.ts";

describe.each(testDialects)("failed and cancelled runs (%s)", (dialect) => {
  let f: WorkFixture;
  beforeAll(async () => {
    f = await startWorkFixture(dialect);
  });
  afterAll(() => f.close());
  beforeEach(() => {
    f.model.reset();
    f.model.setDefault({ text: "Done." });
  });

  const runsOf = async (taskId: string) =>
    (await f.api.get(`workspaces/${f.ws}/tasks/${taskId}/runs`, { token: f.member.token })).body as any[];
  const agentStatus = async (agentId: string) =>
    (await f.api.get(`workspaces/${f.ws}/agents/${agentId}`, { token: f.member.token })).body.status;

  it("a model error is retried with backoff up to max_attempts, then the task fails with the error", async () => {
    const agent = await createAgent(f, { name: "Unlucky" });
    f.model.setDefault({ status: 400, message: "context window exceeded" });
    const draft = await createIssue(f, { assignee_type: "agent", assignee_id: agent.id });
    const task = await taskReaching(f, draft.id, ["failed"]);
    const error = "The model openai/test-model failed (400): 400 context window exceeded";
    expect(task).toMatchObject({ status: "failed", attempt: 3, max_attempts: 3, error });
    const runs = await runsOf(task.id);
    expect(runs.map((run) => [run.status, run.error])).toEqual([
      ["failed", error],
      ["failed", error],
      ["failed", error],
    ]);
    // Each retry waited longer than the one before (50 ms, then 100 ms).
    const gaps = runs.slice(1).map((run, index) => Date.parse(run.started_at) - Date.parse(runs[index].finished_at));
    expect(gaps[0]).toBeGreaterThanOrEqual(45);
    expect(gaps[1]).toBeGreaterThanOrEqual(95);
    const events = await readRunEvents(f, task.run_id);
    expect(events.frames.at(-1)?.data).toEqual({ type: "RUN_ERROR", message: error, code: "model_error" });
    expect(await agentStatus(agent.id)).toBe("error");

    // Once the model answers again, a retry succeeds.
    f.model.setDefault({ text: "Done." }).reply({ status: 400, message: "busy" });
    const next = await createIssue(f, { assignee_type: "agent", assignee_id: agent.id });
    const recovered = await taskReaching(f, next.id);
    expect(recovered).toMatchObject({ status: "succeeded", attempt: 2 });
    expect((await runsOf(recovered.id)).map((run) => run.status)).toEqual(["failed", "succeeded"]);
    expect(await agentStatus(agent.id)).toBe("idle");
  });

  it("a failure of the agent's own configuration is not retried", async () => {
    const agent = await createAgent(f, { name: "Misconfigured", model: "anthropic/claude-test" });
    const draft = await createIssue(f, { assignee_type: "agent", assignee_id: agent.id });
    const task = await taskReaching(f, draft.id);
    expect(task).toMatchObject({
      status: "failed",
      attempt: 1,
      error: "No API key for anthropic/claude-test: set ANTHROPIC_API_KEY",
    });
    // Nothing moved: the issue is where it was.
    const issue = (await f.api.get(`workspaces/${f.ws}/issues/${draft.id}`, { token: f.member.token })).body;
    expect(issue.status).toBe("backlog");
  });

  it("cancelling a running task aborts its model request at once and says so in the activity", async () => {
    const agent = await createAgent(f, { name: "Interrupted" });
    f.model.reply({ stall: true, text: "Let me think" });
    const draft = await createIssue(f, { assignee_type: "agent", assignee_id: agent.id });
    const running = await taskReaching(f, draft.id, ["running"]);
    await eventually(() => f.model.requests.length === 1, "the model request");
    await eventually(async () => (await readRunEventsSoFar(running.run_id)).includes("TEXT_MESSAGE_CONTENT"), "text");

    const cancelled = await f.api.post(`workspaces/${f.ws}/tasks/${running.id}/cancel`, undefined, {
      token: f.admin.token,
    });
    expect(cancelled).toMatchObject({ status: 200, body: { id: running.id, status: "cancelled" } });
    // At once: the model's own timeout is 60 s, so only the cancel can end the request within this wait.
    await eventually(() => f.model.requests[0]?.abortedByClient, "the model to see the disconnect");

    const run = await eventually(async () => {
      const [only] = await runsOf(running.id);
      return only?.status === "cancelled" && only;
    }, "the run to end cancelled");
    expect(run.finished_at).toEqual(expect.any(String));
    const events = await readRunEvents(f, running.run_id);
    expect(events.frames.slice(-2).map((frame) => frame.data)).toEqual([
      { type: "TEXT_MESSAGE_END", messageId: expect.any(String) },
      { type: "RUN_ERROR", message: "The task was cancelled", code: "cancelled" },
    ]);
    const entry = (await activityOf(f.t, f.ws)).find(
      (row) => row.action === "task.cancelled" && row.entity_id === running.id,
    );
    expect(entry).toMatchObject({
      actor_type: "member",
      actor_id: f.admin.user.id,
      issue_id: draft.id,
      details: { agent_id: agent.id, trigger: "assigned", status_before: "running" },
    });
    const comments = (await f.api.get(`workspaces/${f.ws}/issues/${draft.id}/comments`, { token: f.member.token }))
      .body;
    expect(comments).toEqual([]);
    await eventually(async () => (await agentStatus(agent.id)) === "idle", "the agent to be idle");
  });

  it("cancelling a task that has ended is a 409 and changes nothing", async () => {
    const agent = await createAgent(f, { name: "Finisher" });
    const draft = await createIssue(f, { assignee_type: "agent", assignee_id: agent.id });
    const done = await taskReaching(f, draft.id);
    const refused = await f.api.post(`workspaces/${f.ws}/tasks/${done.id}/cancel`, undefined, {
      token: f.member.token,
    });
    expect(refused).toMatchObject({ status: 409, body: { detail: "The task has already ended (succeeded)" } });
    const after = await f.api.get(`workspaces/${f.ws}/tasks/${done.id}`, { token: f.member.token });
    expect(after.body).toEqual(done);
  });

  async function readRunEventsSoFar(runId: string): Promise<string> {
    const rows = await f.t.db.selectFrom("run_events").select("type").where("run_id", "=", runId).execute();
    return rows.map((row) => row.type).join(" ");
  }
});
