// Runners across server processes on one PostgreSQL (spec runtimes.md §2): a long poll open on one process is woken
// by work queued through another (LISTEN/NOTIFY, not polling), and reports reach whichever process answers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient, startAppOn, type TestApp } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";
import { taskReaching } from "../work/helpers.ts";
import { assignIssue, createBoundAgent, FakeRunner, type RuntimeFixture, startRuntimeFixture } from "./helpers.ts";

const postgresOnly = testDialects.filter((dialect) => dialect === "postgres");

describe.each(postgresOnly)("runners across processes (%s)", (dialect) => {
  let f: RuntimeFixture;
  let other: TestApp;
  beforeAll(async () => {
    f = await startRuntimeFixture(dialect);
    other = await startAppOn(f.t.databaseUrl, dialect, { env: { AGENT_WORKERS: "0" } });
  });
  afterAll(async () => {
    await other.close();
    await f.close();
  });

  it("a long poll on one process answers at once when another process queues the task", async () => {
    const runner = new FakeRunner(f);
    await runner.register([{ name: "sh", kind: "command", tags: ["across"] }]);
    const agent = await createBoundAgent(f, [{ tags: ["across"] }]);
    const viaOther = runner.through(new ApiClient(other.url));
    // Longer than the test's own timeout: only the NOTIFY from the first process can end it in time.
    const polling = viaOther.claim({ wait_ms: 30_000 });
    const issue = await assignIssue(f, agent.id);
    const answer = await polling;
    expect(answer.body.tasks.map((task: { issue: { id: string } }) => task.issue.id)).toEqual([issue.id]);
    const [assignment] = answer.body.tasks;
    expect(assignment.platform.url).toBe(other.url);
    expect((await runner.call(`tasks/${assignment.task.id}/complete`, { output: "Done across" })).status).toBe(200);
    expect((await taskReaching(f, issue.id)).status).toBe("succeeded");
  }, 20_000);
});
