// A person in the loop: tools named in approval_required stop the run until a member approves or denies, with no
// process waiting meanwhile (a restart in between changes nothing).
import { describe, expect, it } from "vitest";
import { testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import {
  acrossRestart,
  createAgent,
  createIssue,
  expectNothingHeld,
  parseEventStream,
  readRunEvents,
  taskReaching,
  useWorkFixture,
} from "./helpers.ts";

describe.each(testDialects)("approvals (%s)", (dialect) => {
  const f = useWorkFixture(dialect);

  const approvals = async (query = "") =>
    (await f.api.get(`workspaces/${f.ws}/approvals${query}`, { token: f.member.token })).body as any[];
  const issuesTitled = async (title: string) =>
    (await f.api.get(`workspaces/${f.ws}/issues/?q=${encodeURIComponent(title)}`, { token: f.member.token })).body;

  /** An agent that needs approval for create_issue, asked to create one; resolves once its task waits. */
  async function waitingRun(name: string, title: string) {
    const agent = await createAgent(f, { name, runtime_config: { approval_required: ["create_issue"] } });
    f.model.reply({
      text: "I will file it.",
      toolCalls: [{ id: `call_${name}`, name: "create_issue", arguments: { title } }],
    });
    const draft = await createIssue(f, { assignee_type: "agent", assignee_id: agent.id });
    const task = await taskReaching(f, draft.id, ["waiting_approval"]);
    const [approval] = await approvals(`?status=pending`).then((list) =>
      list.filter((each) => each.task_id === task.id),
    );
    return { agent, draft, task, approval };
  }

  it("the run stops before the tool; approving runs it and the run goes on to its end", async () => {
    const { agent, draft, task, approval } = await waitingRun("Filer", "Follow-up A");
    expect(approval).toEqual({
      id: expect.any(String),
      workspace_id: f.ws,
      task_id: task.id,
      run_id: task.run_id,
      agent_id: agent.id,
      issue_id: draft.id,
      tool_name: "create_issue",
      arguments: { title: "Follow-up A" },
      status: "pending",
      decided_by: null,
      comment: null,
      created_at: expect.any(String),
      decided_at: null,
    });
    expect(await issuesTitled("Follow-up A")).toEqual([]);
    const run = (await f.api.get(`workspaces/${f.ws}/runs/${task.run_id}`, { token: f.member.token })).body;
    expect(run.status).toBe("waiting_approval");
    await expectNothingHeld(f, task.id, agent.id);

    // A subscriber waiting on the run sees the request now and the rest once it is decided.
    const stream = fetch(`${f.t.url}/api/v1/workspaces/${f.ws}/runs/${task.run_id}/events`, {
      headers: { authorization: `Bearer ${f.member.token}` },
    }).then((response) => response.text());
    await eventually(
      async () =>
        (await f.t.db.selectFrom("run_events").select("seq").where("run_id", "=", task.run_id).execute()).length,
      "events",
    );
    f.model.reply({ text: "Filed the follow-up." });
    const decided = await f.api.post(
      `workspaces/${f.ws}/approvals/${approval.id}`,
      { decision: "approve", comment: "ok" },
      {
        token: f.admin.token,
      },
    );
    expect(decided).toMatchObject({
      status: 200,
      body: {
        id: approval.id,
        status: "approved",
        decided_by: f.admin.user.id,
        comment: "ok",
        decided_at: expect.any(String),
      },
    });
    const done = await taskReaching(f, draft.id);
    expect(done).toMatchObject({ status: "succeeded", attempt: 1, run_id: task.run_id });
    const [created] = await issuesTitled("Follow-up A");
    expect(created).toMatchObject({ creator_type: "agent", creator_id: agent.id });
    const toolResult = f.model.requests
      .at(-1)
      ?.body.messages.find((message: { role: string }) => message.role === "tool");
    expect(JSON.parse(toolResult.content)).toMatchObject({ title: "Follow-up A" });

    const frames = parseEventStream(await stream);
    const names = frames.map((frame) => (frame.event === "CUSTOM" ? `CUSTOM ${frame.data.name}` : frame.event));
    const requested = names.indexOf("CUSTOM approval_requested");
    expect(names.slice(requested - 1, requested + 3)).toEqual([
      "TOOL_CALL_END",
      "CUSTOM approval_requested",
      "CUSTOM approval_decided",
      "TOOL_CALL_RESULT",
    ]);
    expect(names.at(-1)).toBe("RUN_FINISHED");
    expect(frames[requested]?.data.value).toMatchObject({ id: approval.id, status: "pending" });
    expect(frames[requested + 1]?.data.value).toMatchObject({ id: approval.id, status: "approved", comment: "ok" });
    expect((await readRunEvents(f, task.run_id)).frames).toEqual(frames);

    const again = await f.api.post(
      `workspaces/${f.ws}/approvals/${approval.id}`,
      { decision: "deny" },
      {
        token: f.member.token,
      },
    );
    expect(again).toMatchObject({ status: 409, body: { detail: "This approval has already been decided" } });
    expect((await approvals()).find((each) => each.id === approval.id)).toMatchObject({ status: "approved" });
  });

  it("denying gives the model the denial, with the comment, as the tool's result; the tool never runs", async () => {
    const { draft, approval } = await waitingRun("Denied", "Follow-up B");
    f.model.reply({ text: "Understood, not filing it." });
    const decided = await f.api.post(
      `workspaces/${f.ws}/approvals/${approval.id}`,
      { decision: "deny", comment: "We track this elsewhere." },
      { token: f.member.token },
    );
    expect(decided.body).toMatchObject({ status: "denied", decided_by: f.member.user.id });
    const done = await taskReaching(f, draft.id);
    expect(done.status).toBe("succeeded");
    expect(await issuesTitled("Follow-up B")).toEqual([]);
    const toolResult = f.model.requests
      .at(-1)
      ?.body.messages.find((message: { role: string }) => message.role === "tool");
    expect(toolResult.content).toMatch(/^Denied: .*create_issue.* Their comment: We track this elsewhere\.$/);
    expect((await approvals("?status=denied")).map((each) => each.id)).toContain(approval.id);
    expect((await approvals("?status=pending")).map((each) => each.id)).not.toContain(approval.id);
  });

  it("cancelling a waiting task ends its run and its pending approval", async () => {
    const { draft, task, approval } = await waitingRun("Dropped", "Follow-up C");
    await f.api.post(`workspaces/${f.ws}/tasks/${task.id}/cancel`, undefined, { token: f.member.token });
    expect((await taskReaching(f, draft.id)).status).toBe("cancelled");
    const events = await readRunEvents(f, task.run_id);
    expect(events.frames.at(-1)?.data).toEqual({
      type: "RUN_ERROR",
      message: "The task was cancelled",
      code: "cancelled",
    });
    const late = await f.api.post(
      `workspaces/${f.ws}/approvals/${approval.id}`,
      { decision: "approve" },
      {
        token: f.member.token,
      },
    );
    expect(late.status).toBe(409);
    expect(await issuesTitled("Follow-up C")).toEqual([]);
  });
});

describe.each(testDialects)("approvals across a restart (%s)", (dialect) => {
  it("a run waiting for approval survives a restart: approved on the new server, it resumes there", async () => {
    const scene = {
      agent: { name: "Careful", runtime_config: { approval_required: ["*"] } },
      firstReply: (issueId: string) => ({
        toolCalls: [{ id: "call_r", name: "add_comment", arguments: { issue_id: issueId, content: "Approved note." } }],
      }),
      pendingPath: "approvals?status=pending",
    };
    await acrossRestart(dialect, scene, async ({ server, model, auth, ws, issue, pending: approval, succeeded }) => {
      model.reply({ text: "Noted." });
      const decided = await server.api.post(`workspaces/${ws}/approvals/${approval.id}`, { decision: "approve" }, auth);
      expect(decided.status).toBe(200);
      const task = await succeeded();
      expect(task.attempt).toBe(1);
      const comments = (await server.api.get(`workspaces/${ws}/issues/${issue.id}/comments`, auth)).body;
      expect(
        comments.map((comment: { content: string; author_type: string }) => [comment.author_type, comment.content]),
      ).toEqual([["agent", "Approved note."]]);
      // The model went on from the stored thread: its second request carries the first call and its result.
      const resumed = model.requests.at(-1)?.body.messages.map((message: { role: string }) => message.role);
      expect(resumed).toEqual(["system", "user", "assistant", "tool"]);
    });
  });
});
