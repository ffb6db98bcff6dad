// Tasks, runs and approvals announce every state change on the workspace event stream, in the change's own
// transaction: what a dashboard or a webhook hears is what happened, in order, once.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { createAgent, createIssue, startWorkFixture, taskReaching, type WorkFixture } from "./helpers.ts";

const WORK_TYPES = "task.*,run.*,approval.*";

describe.each(testDialects)("work events (%s)", (dialect) => {
  let f: WorkFixture;
  beforeAll(async () => {
    f = await startWorkFixture(dialect);
  });
  afterAll(() => f.close());
  beforeEach(() => {
    f.model.reset();
    f.model.setDefault({ text: "Done." });
  });

  /** The work events of one issue, oldest first, as `GET events` lists them. */
  const workEventsOf = async (issueId: string) => {
    const listed = await f.api.get(`workspaces/${f.ws}/events?types=${WORK_TYPES}&limit=200`, {
      token: f.member.token,
    });
    expect(listed.status).toBe(200);
    return (listed.body as any[]).filter((event) => event.issue_id === issueId);
  };

  it("an assignment worked to the end: task queued, started, run started and finished, task succeeded", async () => {
    const agent = await createAgent(f, { name: "Announcer" });
    const issue = await createIssue(f, { assignee_type: "agent", assignee_id: agent.id });
    const task = await taskReaching(f, issue.id, ["succeeded"]);

    const events = await eventually(async () => {
      const found = await workEventsOf(issue.id);
      return found.some((event) => event.type === "task.succeeded") && found;
    }, "the task's events");
    expect(events.map((event) => [event.type, event.entity_type, event.entity_id])).toEqual([
      ["task.queued", "task", task.id],
      ["task.started", "task", task.id],
      ["run.started", "run", task.run_id],
      ["run.finished", "run", task.run_id],
      ["task.succeeded", "task", task.id],
    ]);
    const seqs = events.map((event) => event.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(events[0]).toMatchObject({ workspace_id: f.ws, issue_id: issue.id, data: expect.any(Object) });
  });

  it("a tool that needs approval: waiting, requested, decided, then the task succeeds", async () => {
    const agent = await createAgent(f, { name: "Asker", runtime_config: { approval_required: ["create_issue"] } });
    f.model.reply({
      text: "Filing it.",
      toolCalls: [{ id: "call_events", name: "create_issue", arguments: { title: "From the events test" } }],
    });
    const issue = await createIssue(f, { assignee_type: "agent", assignee_id: agent.id });
    const task = await taskReaching(f, issue.id, ["waiting_approval"]);
    const [approval] = (
      await f.api.get(`workspaces/${f.ws}/approvals?status=pending`, { token: f.member.token })
    ).body.filter((each: any) => each.task_id === task.id);
    const decided = await f.api.post(
      `workspaces/${f.ws}/approvals/${approval.id}`,
      { decision: "approve" },
      { token: f.member.token },
    );
    expect(decided.status).toBe(200);
    await taskReaching(f, issue.id, ["succeeded"]);

    const types = await eventually(async () => {
      const found = (await workEventsOf(issue.id)).map((event) => event.type);
      return found.includes("task.succeeded") && found;
    }, "the approval's events");
    expect(types).toEqual(
      expect.arrayContaining(["task.waiting_approval", "approval.requested", "approval.decided", "task.succeeded"]),
    );
    expect(types.indexOf("approval.requested")).toBeLessThan(types.indexOf("approval.decided"));
    const requested = (await workEventsOf(issue.id)).find((event) => event.type === "approval.requested");
    expect(requested).toMatchObject({ entity_type: "approval", entity_id: approval.id });
  });

  it("a cancelled task is announced once, as the member who cancelled it", async () => {
    const agent = await createAgent(f, { name: "Stopped" });
    f.model.reply({ stall: true, text: "Thinking" });
    const issue = await createIssue(f, { assignee_type: "agent", assignee_id: agent.id });
    const running = await taskReaching(f, issue.id, ["running"]);
    await f.api.post(`workspaces/${f.ws}/tasks/${running.id}/cancel`, undefined, { token: f.admin.token });
    await taskReaching(f, issue.id, ["cancelled"]);

    const cancelled = await eventually(async () => {
      const found = (await workEventsOf(issue.id)).filter((event) => event.type === "task.cancelled");
      return found.length > 0 && found;
    }, "the cancellation event");
    expect(cancelled).toHaveLength(1);
    expect(cancelled[0]).toMatchObject({ entity_id: running.id, actor_type: "member", actor_id: f.admin.user.id });
  });
});
