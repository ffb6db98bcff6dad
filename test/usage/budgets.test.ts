// Monthly budgets: at 80 % one warning, at 100 % the agent's (or workspace's) work waits for budget, not failed and
// not counted as an attempt, until the budget is raised.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import {
  createAgent,
  createIssue,
  startWorkFixture,
  taskReaching,
  tasksOf,
  type WorkFixture,
} from "../work/helpers.ts";

describe.each(testDialects)("budgets (%s)", (dialect) => {
  let f: WorkFixture;
  beforeAll(async () => {
    f = await startWorkFixture(dialect);
  });
  afterAll(() => f.close());
  beforeEach(() => {
    f.model.reset();
    f.model.setDefault({ text: "Done." });
  });

  const budgetEvents = async () =>
    ((await f.api.get(`workspaces/${f.ws}/events?limit=200`, { token: f.member.token })).body as any[]).filter(
      (event) => event.type.startsWith("budget."),
    );

  /** $0.01 per uncached input token: each default model call (11 input tokens) costs $0.11. */
  const PRICE = { input: 10_000, output: 0 };

  it("an agent at its budget warns once, then its next task waits for budget until the budget is raised", async () => {
    const agent = await createAgent(f, { name: "Spender", runtime_config: { price: PRICE }, monthly_budget_usd: 0.12 });
    expect(agent.monthly_budget_usd).toBe(0.12);
    const first = await createIssue(f, { title: "First", assignee_type: "agent", assignee_id: agent.id });
    expect((await taskReaching(f, first.id)).status).toBe("succeeded");
    // $0.11 of $0.12: past 80 %, not yet 100 %.
    const warned = await budgetEvents();
    expect(warned.filter((event) => event.data.agent_id === agent.id).map((event) => event.type)).toEqual([
      "budget.warning",
    ]);

    const second = await createIssue(f, { title: "Second", assignee_type: "agent", assignee_id: agent.id });
    expect((await taskReaching(f, second.id)).status).toBe("succeeded");
    const spent = (await budgetEvents()).filter((event) => event.data.agent_id === agent.id);
    expect(spent.map((event) => event.type).sort()).toEqual(["budget.exceeded", "budget.warning"]);
    const blocked = await f.api.get(`workspaces/${f.ws}/agents/${agent.id}`, { token: f.member.token });
    expect(blocked.body.status).toBe("blocked");

    const third = await createIssue(f, { title: "Third", assignee_type: "agent", assignee_id: agent.id });
    const waiting = await eventually(async () => {
      const [task] = await tasksOf(f, third.id);
      return task?.waiting_for === "budget" ? task : undefined;
    }, "the third task waiting for budget");
    expect(waiting).toMatchObject({ status: "queued", attempt: 0, waiting_for: "budget" });
    const requestsBefore = f.model.requests.length;

    const raised = await f.api.patch(
      `workspaces/${f.ws}/agents/${agent.id}`,
      { monthly_budget_usd: 10 },
      { token: f.owner.token },
    );
    expect(raised.status).toBe(200);
    expect(raised.body.monthly_budget_usd).toBe(10);
    const done = await taskReaching(f, third.id);
    expect(done).toMatchObject({ status: "succeeded", attempt: 1, waiting_for: null });
    expect(f.model.requests.length).toBe(requestsBefore + 1);
    const freed = await f.api.get(`workspaces/${f.ws}/agents/${agent.id}`, { token: f.member.token });
    expect(freed.body.status).toBe("idle");
    // No new alert for the raised budget's month below its 80 %.
    expect((await budgetEvents()).filter((event) => event.data.agent_id === agent.id)).toHaveLength(2);
  });

  it("a budget crossed mid-run stops the run before its next model call; the task waits, then runs again", async () => {
    const agent = await createAgent(f, { name: "Mid-run", runtime_config: { price: PRICE }, monthly_budget_usd: 0.1 });
    f.model.reply({ text: "Looking.", toolCalls: [{ name: "list_agents", arguments: {} }] });
    const issue = await createIssue(f, { title: "Two calls", assignee_type: "agent", assignee_id: agent.id });
    const waiting = await eventually(async () => {
      const [task] = await tasksOf(f, issue.id);
      return task?.waiting_for === "budget" ? task : undefined;
    }, "the task waiting for budget after its first model call");
    expect(waiting).toMatchObject({ status: "queued", attempt: 0 });
    expect(f.model.requests).toHaveLength(1);
    const run = (await f.api.get(`workspaces/${f.ws}/runs/${waiting.run_id}`, { token: f.member.token })).body;
    expect(run).toMatchObject({ status: "failed", usage: { input_tokens: 11, cost_usd: expect.closeTo(0.11, 9) } });
    expect(run.error).toMatch(/budget/);
    const exceeded = (await budgetEvents()).filter(
      (event) => event.data.agent_id === agent.id && event.type === "budget.exceeded",
    );
    expect(exceeded).toHaveLength(1);

    await f.api.patch(`workspaces/${f.ws}/agents/${agent.id}`, { monthly_budget_usd: 5 }, { token: f.owner.token });
    expect(await taskReaching(f, issue.id)).toMatchObject({ status: "succeeded", attempt: 1 });
  });

  it("the workspace's budget holds every agent of it; only admins set it", async () => {
    const byMember = await f.api.patch(`workspaces/${f.ws}`, { monthly_budget_usd: 0 }, { token: f.member.token });
    expect(byMember.status).toBe(403);
    const byAdmin = await f.api.patch(`workspaces/${f.ws}`, { monthly_budget_usd: 0 }, { token: f.admin.token });
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body.monthly_budget_usd).toBe(0);
    expect((await f.api.patch(`workspaces/${f.ws}`, { monthly_budget_usd: -1 }, { token: f.admin.token })).status).toBe(
      422,
    );

    const agent = await createAgent(f, { name: "Held by the workspace" });
    const issue = await createIssue(f, { title: "Held", assignee_type: "agent", assignee_id: agent.id });
    await eventually(async () => {
      const [task] = await tasksOf(f, issue.id);
      return task?.waiting_for === "budget" ? task : undefined;
    }, "a task waiting for the workspace's budget");

    await f.api.patch(`workspaces/${f.ws}`, { monthly_budget_usd: null }, { token: f.admin.token });
    expect((await taskReaching(f, issue.id)).status).toBe("succeeded");
  });
});
