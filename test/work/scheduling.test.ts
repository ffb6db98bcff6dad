// Who runs when: an agent runs at most max_concurrent_tasks at once, a process at most AGENT_WORKERS; the rest wait
// queued, urgent issues first, then oldest.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import {
  createAgent,
  createIssue,
  frameOf,
  startWorkFixture,
  taskReaching,
  tasksOf,
  type WorkFixture,
} from "./helpers.ts";

/** Issues whose title says [hold] keep their run's model request open until cancelled. */
const HOLD = "[hold]";

describe.each(testDialects)("scheduling (%s)", (dialect) => {
  let f: WorkFixture;
  beforeAll(async () => {
    f = await startWorkFixture(dialect, { env: { AGENT_WORKERS: "3" } });
    f.model.routeBy((body) => (frameOf(body).includes(HOLD) ? { stall: true } : undefined));
  });
  afterAll(() => f.close());
  beforeEach(() => {
    f.model.reset();
    f.model.setDefault({ text: "Done." });
  });

  const cancel = (taskId: string) =>
    f.api.post(`workspaces/${f.ws}/tasks/${taskId}/cancel`, undefined, { token: f.member.token });
  const statusOf = async (issueId: string) => (await tasksOf(f, issueId))[0]?.status;

  it("an agent runs at most max_concurrent_tasks at once; the waiting run urgent first, then oldest", async () => {
    const agent = await createAgent(f, { name: "One at a time", max_concurrent_tasks: 1 });
    const assigned = { assignee_type: "agent", assignee_id: agent.id };
    const blocker = await createIssue(f, { title: `Blocker ${HOLD}`, ...assigned });
    const running = await taskReaching(f, blocker.id, ["running"]);
    const older = await createIssue(f, { title: "Older, no priority", ...assigned });
    const urgent = await createIssue(f, { title: "Newer, urgent", priority: "urgent", ...assigned });
    const later = await createIssue(f, { title: "Newest, no priority", ...assigned });
    // Nothing else of this agent starts while its one slot is taken.
    await eventually(() => f.model.requests.length === 1, "the blocker's model call");
    for (const issue of [older, urgent, later]) expect(await statusOf(issue.id)).toBe("queued");

    await cancel(running.id);
    const done = await Promise.all([older, urgent, later].map((issue) => taskReaching(f, issue.id)));
    expect(done.map((task) => task.status)).toEqual(["succeeded", "succeeded", "succeeded"]);
    const asked = f.model.requests.slice(1).map((request) => /# \w+-\d+: (.*)/.exec(frameOf(request.body))?.[1]);
    expect(asked).toEqual(["Newer, urgent", "Older, no priority", "Newest, no priority"]);
  });

  it("a waiting task follows its issue's priority: made urgent it runs first, no longer urgent it waits its turn", async () => {
    const agent = await createAgent(f, { name: "Reprioritised" });
    const assigned = { assignee_type: "agent", assignee_id: agent.id };
    const blocker = await createIssue(f, { title: `Blocker ${HOLD}`, ...assigned });
    const running = await taskReaching(f, blocker.id, ["running"]);
    const wasUrgent = await createIssue(f, { title: "Urgent when queued", priority: "urgent", ...assigned });
    const becomesUrgent = await createIssue(f, { title: "Urgent later", priority: "low", ...assigned });
    const issues = `workspaces/${f.ws}/issues/`;
    for (const [issue, priority] of [
      [wasUrgent, "high"],
      [becomesUrgent, "urgent"],
    ] as const) {
      const patched = await f.api.patch(`${issues}${issue.id}`, { priority }, { token: f.member.token });
      expect(patched.status).toBe(200);
    }
    for (const issue of [wasUrgent, becomesUrgent]) expect(await statusOf(issue.id)).toBe("queued");

    await cancel(running.id);
    await Promise.all([wasUrgent, becomesUrgent].map((issue) => taskReaching(f, issue.id)));
    const asked = f.model.requests.slice(1).map((request) => /# \w+-\d+: (.*)/.exec(frameOf(request.body))?.[1]);
    expect(asked).toEqual(["Urgent later", "Urgent when queued"]);
  });

  it("an agent with max_concurrent_tasks 2 runs two at once; a process runs at most AGENT_WORKERS", async () => {
    const pair = await createAgent(f, { name: "Two at a time", max_concurrent_tasks: 2 });
    const single = await createAgent(f, { name: "Another" });
    const third = await createAgent(f, { name: "A third" });
    const issues: { id: string }[] = [];
    for (const agent of [pair, pair, single, third]) {
      issues.push(
        await createIssue(f, { title: `Hold ${issues.length} ${HOLD}`, assignee_type: "agent", assignee_id: agent.id }),
      );
    }
    // Three workers in this process: both of the pair's and the next one's; the last waits for a worker.
    await eventually(async () => {
      const statuses = await Promise.all(issues.map((issue) => statusOf(issue.id)));
      return statuses.filter((status) => status === "running").length === 3 && statuses;
    }, "three runs at once");
    const statuses = await Promise.all(issues.map((issue) => statusOf(issue.id)));
    expect(statuses).toEqual(["running", "running", "running", "queued"]);
    // A claimed task opens its model request a moment later.
    await eventually(() => f.model.openStreams === 3, "three model requests at once");

    // A slot frees up: the waiting one runs.
    const [first] = await tasksOf(f, issues[0]!.id);
    await cancel(first.id);
    await eventually(async () => (await statusOf(issues[3]!.id)) === "running", "the fourth to run");
    for (const issue of issues) {
      const [task] = await tasksOf(f, issue.id);
      if (task.status === "running") await cancel(task.id);
    }
  });
});
