// What gives an agent work: assignment, comments on its issues, @mentions, a member's ask; and what takes it away.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { activityOf } from "../helpers/platform.ts";
import {
  createAgent,
  createIssue,
  frameOf,
  startWorkFixture,
  TERMINAL,
  taskReaching,
  tasksOf,
  type WorkFixture,
} from "./helpers.ts";

describe.each(testDialects)("task triggers (%s)", (dialect) => {
  let f: WorkFixture;
  beforeAll(async () => {
    f = await startWorkFixture(dialect);
  });
  afterAll(() => f.close());
  beforeEach(() => {
    f.model.reset();
    f.model.setDefault({ text: "Done." });
  });

  const comment = (issueId: string, content: string, token = f.member.token) =>
    f.api.post(`workspaces/${f.ws}/issues/${issueId}/comments`, { content }, { token });

  it("a comment on an issue assigned to the agent gives it a task naming the comment; its own comments do not", async () => {
    const agent = await createAgent(f, { name: "Commenter" });
    const draft = await createIssue(f, { assignee_type: "agent", assignee_id: agent.id });
    await taskReaching(f, draft.id);
    const asked = await comment(draft.id, "Please also check Firefox.");
    expect(asked.status).toBe(201);
    const second = await eventually(async () => {
      const tasks = await tasksOf(f, draft.id);
      return tasks.length === 2 && tasks[0].status === "succeeded" && tasks[0];
    }, "the comment's task to succeed");
    expect(second).toMatchObject({ trigger: "comment", comment_id: asked.body.id, agent_id: agent.id });
    const frame = frameOf(f.model.requests.at(-1)?.body);
    expect(frame).toContain("Please also check Firefox.");
    expect(frame).toContain("a new comment");
    // Both runs answered with a comment of the agent; neither gave it another task.
    const comments = (await f.api.get(`workspaces/${f.ws}/issues/${draft.id}/comments`, { token: f.member.token }))
      .body;
    expect(comments.filter((each: { author_type: string }) => each.author_type === "agent")).toHaveLength(2);
    expect(await tasksOf(f, draft.id)).toHaveLength(2);
  });

  it("@mentions give the named agents a task, case-insensitively and with - for spaces; addresses do not", async () => {
    const release = await createAgent(f, { name: "Release Bot" });
    const docs = await createAgent(f, { name: "Docs" });
    const bystander = await createAgent(f, { name: "Ops" });
    const draft = await createIssue(f);
    const mention = await comment(draft.id, "@release-bot and @DOCS: please look. Mail ops@ops.example if stuck.");
    const [releaseTask] = await eventually(async () => {
      const tasks = await tasksOf(f, draft.id);
      return tasks.length === 2 && tasks.every((task) => task.status === "succeeded") && tasks;
    }, "both mentioned agents' tasks");
    const byAgent = new Map((await tasksOf(f, draft.id)).map((task) => [task.agent_id, task]));
    expect(byAgent.get(release.id)).toMatchObject({ trigger: "mention", comment_id: mention.body.id });
    expect(byAgent.get(docs.id)).toMatchObject({ trigger: "mention", comment_id: mention.body.id });
    expect(byAgent.has(bystander.id)).toBe(false);
    expect(releaseTask).toBeDefined();

    // An agent's comment that mentions another agent is a trigger like anyone's.
    const other = await createIssue(f);
    f.model.reply({
      toolCalls: [{ name: "add_comment", arguments: { issue_id: other.id, content: "Over to @Ops." } }],
    });
    await f.api.post(`workspaces/${f.ws}/issues/${other.id}/tasks`, { agent_id: docs.id }, { token: f.member.token });
    const opsTask = await eventually(
      async () => (await tasksOf(f, other.id)).find((task) => task.agent_id === bystander.id),
      "Ops to be mentioned by Docs",
    );
    expect(opsTask.trigger).toBe("mention");
    await eventually(
      async () => (await tasksOf(f, other.id)).every((task) => TERMINAL.includes(task.status)),
      "both tasks of the second issue to end",
    );
  });

  it("a trigger while a task is open folds into it, and the run sees the new comment", async () => {
    const agent = await createAgent(f, { name: "Folder" });
    f.model.reply(
      { text: ["Reading", " the", " issue", " slowly."], chunkDelayMs: 200 },
      { text: "Covered Firefox too." },
    );
    const draft = await createIssue(f, { assignee_type: "agent", assignee_id: agent.id });
    const running = await taskReaching(f, draft.id, ["running"]);
    const folded = await comment(draft.id, "Firefox is affected as well.");
    expect(folded.status).toBe(201);
    const again = await f.api.post(
      `workspaces/${f.ws}/issues/${draft.id}/tasks`,
      { agent_id: agent.id },
      {
        token: f.member.token,
      },
    );
    expect(again).toMatchObject({ status: 200, body: { id: running.id } });
    const done = await taskReaching(f, draft.id);
    expect(done).toMatchObject({ id: running.id, status: "succeeded", trigger: "assigned" });
    expect(await tasksOf(f, draft.id)).toHaveLength(1);
    const requests = f.model.requests.filter((request) => frameOf(request.body).includes(draft.identifier));
    expect(requests).toHaveLength(2);
    const followUp = requests[1]?.body.messages.at(-1);
    expect(followUp).toMatchObject({ role: "user", content: expect.stringContaining("Firefox is affected as well.") });
    const runs = (await f.api.get(`workspaces/${f.ws}/tasks/${done.id}/runs`, { token: f.member.token })).body;
    expect(runs).toHaveLength(1);
  });

  it("the database keeps one open task per agent and issue", async () => {
    const agent = await createAgent(f, { name: "Unique" });
    f.model.reply({ stall: true });
    const draft = await createIssue(f, { assignee_type: "agent", assignee_id: agent.id });
    const open = await taskReaching(f, draft.id, ["running"]);
    const at = "2026-01-01T00:00:00.000000";
    const second = {
      ...(await f.t.db.selectFrom("tasks").selectAll().where("id", "=", open.id).executeTakeFirstOrThrow()),
      id: randomUUID(),
      status: "queued" as const,
      created_at: at,
    };
    await expect(f.t.db.insertInto("tasks").values(second).execute()).rejects.toThrow();
    await f.api.post(`workspaces/${f.ws}/tasks/${open.id}/cancel`, undefined, { token: f.member.token });
    await taskReaching(f, draft.id, ["cancelled"]);
  });

  it("un-assigning the agent or deleting the issue cancels its open task; re-assigning moves the work", async () => {
    const first = await createAgent(f, { name: "First" });
    const second = await createAgent(f, { name: "Second" });
    f.model.reply({ stall: true });
    const draft = await createIssue(f, { assignee_type: "agent", assignee_id: first.id });
    const running = await taskReaching(f, draft.id, ["running"]);
    await eventually(() => f.model.requests.length === 1, "the model call");
    f.model.reply({ stall: true });
    const moved = await f.api.patch(
      `workspaces/${f.ws}/issues/${draft.id}`,
      { assignee_id: second.id },
      {
        token: f.member.token,
      },
    );
    expect(moved.status).toBe(200);
    const cancelled = await eventually(async () => {
      const tasks = await tasksOf(f, draft.id);
      return tasks.find((task) => task.id === running.id && task.status === "cancelled");
    }, "the first agent's task to be cancelled");
    expect(cancelled.finished_at).toEqual(expect.any(String));
    await eventually(() => f.model.requests[0]?.abortedByClient, "the first run's model request to be aborted");
    const secondTask = await eventually(
      async () => (await tasksOf(f, draft.id)).find((task) => task.agent_id === second.id && task.status === "running"),
      "the second agent's task to run",
    );

    const unassigned = await f.api.patch(
      `workspaces/${f.ws}/issues/${draft.id}`,
      { assignee_id: null },
      {
        token: f.member.token,
      },
    );
    expect(unassigned.status).toBe(200);
    await eventually(
      async () => (await tasksOf(f, draft.id)).find((task) => task.id === secondTask.id)?.status === "cancelled",
      "the second agent's task to be cancelled",
    );

    const third = await createIssue(f);
    f.model.reply({ stall: true });
    await f.api.post(`workspaces/${f.ws}/issues/${third.id}/tasks`, { agent_id: first.id }, { token: f.member.token });
    const thirdTask = await taskReaching(f, third.id, ["running"]);
    expect((await f.api.delete(`workspaces/${f.ws}/issues/${third.id}`, { token: f.member.token })).status).toBe(204);
    const gone = await eventually(async () => {
      const row = await f.t.db.selectFrom("tasks").selectAll().where("id", "=", thirdTask.id).executeTakeFirst();
      return row?.status === "cancelled" && row;
    }, "the deleted issue's task to be cancelled");
    expect(gone.issue_id).toBe(third.id);
    const cancellations = (await activityOf(f.t, f.ws)).filter((row) => row.action === "task.cancelled");
    expect(cancellations.slice(-3).map((row) => [row.entity_id, row.actor_type, row.actor_id])).toEqual([
      [running.id, "member", f.member.user.id],
      [secondTask.id, "member", f.member.user.id],
      [thirdTask.id, "member", f.member.user.id],
    ]);
    // Each names its agent, as well as giving its id.
    expect(cancellations.slice(-3).map((row) => [row.details.agent_id, row.details.agent_name])).toEqual([
      [first.id, "First"],
      [second.id, "Second"],
      [first.id, "First"],
    ]);
    // Both agents are idle again once nothing of theirs runs.
    for (const agent of [first, second]) {
      await eventually(
        async () =>
          (await f.api.get(`workspaces/${f.ws}/agents/${agent.id}`, { token: f.member.token })).body.status === "idle",
        `${agent.name} to be idle`,
      );
    }
  });
});
