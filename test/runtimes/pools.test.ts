// Pools with ordered fallback (spec runtimes.md §3): the preferred pool first, spilling over in order when it is full
// or offline; a task no online runtime matches says it waits for a runtime.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDialects } from "../helpers/databases.ts";
import { tasksOf } from "../work/helpers.ts";
import { assignIssue, createBoundAgent, FakeRunner, type RuntimeFixture, startRuntimeFixture } from "./helpers.ts";

describe.each(testDialects)("runtime pools (%s)", (dialect) => {
  let f: RuntimeFixture;
  beforeAll(async () => {
    f = await startRuntimeFixture(dialect);
  });
  afterAll(() => f.close());

  const ids = (response: { body: { tasks: { task: { id: string } }[] } }) =>
    response.body.tasks.map((assignment) => assignment.task.id);

  it("the first pool takes the work while it has room; the next takes the overflow, in order", async () => {
    const fast = new FakeRunner(f);
    await fast.register([{ name: "gpu", kind: "claude", tags: ["fast"], max_concurrent_tasks: 1 }], "fast");
    const slow = new FakeRunner(f);
    await slow.register([{ name: "cpu", kind: "claude", tags: ["slow"], max_concurrent_tasks: 5 }], "slow");
    const agent = await createBoundAgent(f, [{ tags: ["fast"] }, { tags: ["slow"] }], { max_concurrent_tasks: 5 });
    for (let index = 0; index < 3; index++) await assignIssue(f, agent.id);
    expect(ids(await slow.claim({ max_tasks: 5 }))).toEqual([]);
    const first = ids(await fast.claim({ max_tasks: 5 }));
    expect(first).toHaveLength(1);
    const overflow = ids(await slow.claim({ max_tasks: 5 }));
    expect(overflow).toHaveLength(2);
    expect(new Set([...first, ...overflow]).size).toBe(3);
    for (const id of first) await fast.call(`tasks/${id}/complete`, { output: "done" });
    for (const id of overflow) await slow.call(`tasks/${id}/complete`, { output: "done" });
    await fast.call("deregister");
    await slow.call("deregister");
  });

  it("an offline preferred pool lets the next one take the work at once", async () => {
    const preferred = new FakeRunner(f);
    await preferred.register([{ name: "a", kind: "codex", tags: ["first"] }], "preferred");
    const fallback = new FakeRunner(f);
    await fallback.register([{ name: "b", kind: "codex", tags: ["second"] }], "fallback");
    const agent = await createBoundAgent(f, [{ tags: ["first"] }, { tags: ["second"] }]);
    await assignIssue(f, agent.id);
    expect(ids(await fallback.claim())).toEqual([]);
    await preferred.call("deregister");
    const taken = ids(await fallback.claim({ wait_ms: 2000 }));
    expect(taken).toHaveLength(1);
    await fallback.call(`tasks/${taken[0]}/complete`, { output: "done" });
    await fallback.call("deregister");
  });

  it("a runtime_id selector names one runtime", async () => {
    const runner = new FakeRunner(f);
    await runner.register(
      [
        { name: "x", kind: "opencode", tags: ["pin"] },
        { name: "y", kind: "opencode", tags: ["pin"] },
      ],
      "pinned",
    );
    const agent = await createBoundAgent(f, [{ runtime_id: runner.runtimeId("y") }]);
    await assignIssue(f, agent.id);
    const [assignment] = (await runner.claim({ max_tasks: 5 })).body.tasks;
    expect(assignment.runtime_id).toBe(runner.runtimeId("y"));
    await runner.call(`tasks/${assignment.task.id}/complete`, { output: "done" });
    await runner.call("deregister");
  });

  it("a task no online runtime matches waits for a runtime, and says so until one comes online", async () => {
    const agent = await createBoundAgent(f, [{ kind: "gemini", tags: ["rare"] }]);
    const issue = await assignIssue(f, agent.id);
    const [task] = await tasksOf(f, issue.id);
    expect(task).toMatchObject({ status: "queued", waiting_for: "runtime" });
    const one = await f.api.get(`workspaces/${f.ws}/tasks/${task.id}`, { token: f.member.token });
    expect(one.body.waiting_for).toBe("runtime");
    const listed = await f.api.get(`workspaces/${f.ws}/tasks?status=queued`, { token: f.member.token });
    expect(listed.body.find((each: { id: string }) => each.id === task.id).waiting_for).toBe("runtime");
    const runner = new FakeRunner(f);
    await runner.register([{ name: "g", kind: "gemini", tags: ["rare"], max_concurrent_tasks: 1 }], "rare");
    expect((await f.api.get(`workspaces/${f.ws}/tasks/${task.id}`, { token: f.member.token })).body.waiting_for).toBe(
      null,
    );
    const [claimed] = (await runner.claim()).body.tasks;
    expect(claimed.task.id).toBe(task.id);
    expect((await f.api.get(`workspaces/${f.ws}/tasks/${task.id}`, { token: f.member.token })).body).toMatchObject({
      status: "running",
      waiting_for: null,
    });
  });
});
