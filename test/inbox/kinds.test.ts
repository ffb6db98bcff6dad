// Each change that concerns a person puts one item in their inbox, in the change's own transaction: mentions,
// assignments, failed tasks, approval requests and budget alerts. Never for outsiders, never for whoever did it.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TestUser } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { createAgent, createIssue, startWorkFixture, taskReaching, type WorkFixture } from "../work/helpers.ts";

describe.each(testDialects)("inbox items (%s)", (dialect) => {
  let f: WorkFixture;
  beforeAll(async () => {
    f = await startWorkFixture(dialect);
  });
  afterAll(() => f.close());
  beforeEach(() => {
    f.model.reset();
    f.model.setDefault({ text: "Done." });
  });

  const inboxOf = async (user: TestUser, query = "") => {
    const response = await f.api.get(`me/inbox${query}`, { token: user.token });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body as any[];
  };
  const itemsAbout = async (user: TestUser, issueId: string) =>
    (await inboxOf(user)).filter((item) => item.issue_id === issueId);

  it("a comment naming @people tells each member named, not its author and not an outsider", async () => {
    const issue = await createIssue(f, { title: "Mentions" }, f.owner.token);
    const content = "@member and @Admin, please look (cc @owner, @outsider; mail ops@member.example)";
    const posted = await f.api.post(
      `workspaces/${f.ws}/issues/${issue.id}/comments`,
      { content },
      {
        token: f.owner.token,
      },
    );
    expect(posted.status).toBe(201);
    const [forMember] = await itemsAbout(f.member, issue.id);
    expect(forMember).toEqual({
      id: expect.any(String),
      kind: "mentioned",
      workspace_id: f.ws,
      issue_id: issue.id,
      task_id: null,
      title: `owner mentioned you on ${issue.identifier} Mentions`,
      body: content,
      created_at: expect.any(String),
      read_at: null,
    });
    expect((await itemsAbout(f.admin, issue.id)).map((item) => item.kind)).toEqual(["mentioned"]);
    expect(await itemsAbout(f.owner, issue.id)).toEqual([]);
    expect(await inboxOf(f.outsider)).toEqual([]);
  });

  it("an issue assigned to a person tells them, unless they assigned it to themselves", async () => {
    const mine = await createIssue(f, { title: "Self", assignee_type: "member", assignee_id: f.member.user.id });
    expect(await itemsAbout(f.member, mine.id)).toEqual([]);

    const given = await createIssue(
      f,
      { title: "Given", assignee_type: "member", assignee_id: f.member.user.id },
      f.owner.token,
    );
    expect(await itemsAbout(f.member, given.id)).toMatchObject([
      { kind: "assigned", title: `owner assigned you ${given.identifier} Given`, body: null },
    ]);
    // Reassigned by the member to the admin: the admin hears, nobody else.
    const moved = await f.api.patch(
      `workspaces/${f.ws}/issues/${given.id}`,
      { assignee_id: f.admin.user.id },
      { token: f.member.token },
    );
    expect(moved.status).toBe(200);
    expect(await itemsAbout(f.admin, given.id)).toMatchObject([{ kind: "assigned" }]);
    expect(await itemsAbout(f.member, given.id)).toHaveLength(1);
    // An edit that leaves the assignee as it is tells nobody again.
    await f.api.patch(`workspaces/${f.ws}/issues/${given.id}`, { title: "Given on" }, { token: f.owner.token });
    expect(await itemsAbout(f.admin, given.id)).toHaveLength(1);
  });

  it("a task that fails for good tells its issue's creator", async () => {
    const agent = await createAgent(f, { name: "Misconfigured", model: "anthropic/claude-test" });
    const draft = await createIssue(f, { title: "Doomed", assignee_type: "agent", assignee_id: agent.id });
    const task = await taskReaching(f, draft.id);
    expect(task.status).toBe("failed");
    const items = await eventually(async () => {
      const found = await itemsAbout(f.member, draft.id);
      return found.length > 0 && found;
    }, "the failure in the creator's inbox");
    expect(items).toEqual([
      expect.objectContaining({
        kind: "task_failed",
        task_id: task.id,
        title: `Misconfigured's task failed on ${draft.identifier} Doomed`,
        body: "No API key for anthropic/claude-test: set ANTHROPIC_API_KEY",
      }),
    ]);
    for (const other of [f.owner, f.admin, f.outsider]) expect(await itemsAbout(other, draft.id)).toEqual([]);
  });

  it("an approval request tells every member; deciding it reads it for everyone", async () => {
    const agent = await createAgent(f, { name: "Careful", runtime_config: { approval_required: ["create_issue"] } });
    f.model.reply({
      text: "I will file it.",
      toolCalls: [{ id: "call_inbox", name: "create_issue", arguments: { title: "Follow-up" } }],
    });
    const draft = await createIssue(f, { title: "Needs a yes", assignee_type: "agent", assignee_id: agent.id });
    const task = await taskReaching(f, draft.id, ["waiting_approval"]);
    for (const person of [f.owner, f.admin, f.member]) {
      expect(await itemsAbout(person, draft.id)).toEqual([
        expect.objectContaining({
          kind: "approval_requested",
          task_id: task.id,
          title: `Careful asks to use create_issue on ${draft.identifier} Needs a yes`,
          read_at: null,
        }),
      ]);
    }
    expect(await inboxOf(f.outsider)).toEqual([]);
    const before = (await f.api.get("me/inbox/count", { token: f.owner.token })).body.unread;

    const [approval] = (await f.api.get(`workspaces/${f.ws}/approvals?status=pending`, { token: f.admin.token })).body;
    const decided = await f.api.post(
      `workspaces/${f.ws}/approvals/${approval.id}`,
      { decision: "deny" },
      { token: f.admin.token },
    );
    expect(decided.status).toBe(200);
    for (const person of [f.owner, f.admin, f.member]) {
      const [item] = await itemsAbout(person, draft.id);
      expect(item.read_at).not.toBeNull();
    }
    expect((await f.api.get("me/inbox/count", { token: f.owner.token })).body.unread).toBe(before - 1);
    await taskReaching(f, draft.id);
  });

  it("cancelling a task that waits for approval reads its requests for everyone", async () => {
    const agent = await createAgent(f, { name: "Patient", runtime_config: { approval_required: ["create_issue"] } });
    f.model.reply({
      text: "I will file it.",
      toolCalls: [{ id: "call_cancelled", name: "create_issue", arguments: { title: "Never" } }],
    });
    const draft = await createIssue(f, { title: "Called off", assignee_type: "agent", assignee_id: agent.id });
    const task = await taskReaching(f, draft.id, ["waiting_approval"]);
    expect((await itemsAbout(f.admin, draft.id)).map((item) => item.read_at)).toEqual([null]);
    const cancelled = await f.api.post(`workspaces/${f.ws}/tasks/${task.id}/cancel`, undefined, {
      token: f.member.token,
    });
    expect(cancelled.status).toBe(200);
    for (const person of [f.owner, f.admin, f.member]) {
      const [item] = await itemsAbout(person, draft.id);
      expect(item.read_at).not.toBeNull();
    }
  });

  it("a budget at 80 % tells the workspace's admins and owner, not its members", async () => {
    const agent = await createAgent(f, {
      name: "Spender",
      runtime_config: { price: { input: 10_000, output: 0 } },
      monthly_budget_usd: 0.12,
    });
    const first = await createIssue(f, { title: "Costly", assignee_type: "agent", assignee_id: agent.id });
    expect((await taskReaching(f, first.id)).status).toBe("succeeded");
    const budgetItems = async (user: TestUser) =>
      (await inboxOf(user)).filter((item) => item.kind.startsWith("budget_"));
    for (const admin of [f.owner, f.admin]) {
      expect(await budgetItems(admin)).toEqual([
        expect.objectContaining({
          kind: "budget_warning",
          issue_id: null,
          title: "Spender's monthly budget is 80 % spent",
          body: expect.stringMatching(/^\$0\.11 of \$0\.12 spent in \d{4}-\d{2}$/),
        }),
      ]);
    }
    expect(await budgetItems(f.member)).toEqual([]);
    const second = await createIssue(f, { title: "Costlier", assignee_type: "agent", assignee_id: agent.id });
    expect((await taskReaching(f, second.id)).status).toBe("succeeded");
    expect((await budgetItems(f.admin)).map((item) => item.kind)).toEqual(["budget_exceeded", "budget_warning"]);
  });
});
