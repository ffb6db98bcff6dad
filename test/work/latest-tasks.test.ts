// What a board needs to say of each card's work in one request: `latest=true` keeps each agent's newest task on each
// issue, so a failure tried again (POST issues/{id}/tasks, the dashboard's Run again) no longer reads as failed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDialects } from "../helpers/databases.ts";
import { createAgent, createIssue, startWorkFixture, taskReaching, type WorkFixture } from "./helpers.ts";

describe.each(testDialects)("the newest task of each agent and issue (%s)", (dialect) => {
  let f: WorkFixture;
  beforeAll(async () => {
    f = await startWorkFixture(dialect, { env: { TASK_MAX_ATTEMPTS: "1" } });
  });
  afterAll(() => f.close());

  const list = async (query: string) =>
    (await f.api.get(`workspaces/${f.ws}/tasks?${query}`, { token: f.member.token })).body.map(
      (task: { issue_id: string; status: string }) => [task.issue_id, task.status],
    );

  it("lists only each pair's newest task; a failure run again drops out of the failed ones", async () => {
    const agent = await createAgent(f, { name: "Retrier" });
    f.model.setDefault({ status: 400, message: "broken" });
    const retried = await createIssue(f, { title: "Tried again", assignee_type: "agent", assignee_id: agent.id });
    const failed = await createIssue(f, { title: "Left failed", assignee_type: "agent", assignee_id: agent.id });
    await taskReaching(f, retried.id, ["failed"]);
    await taskReaching(f, failed.id, ["failed"]);
    expect(await list("latest=true&status=failed")).toEqual([
      [failed.id, "failed"],
      [retried.id, "failed"],
    ]);

    f.model.setDefault({ text: "Done." });
    const again = await f.api.post(
      `workspaces/${f.ws}/issues/${retried.id}/tasks`,
      { agent_id: agent.id },
      { token: f.member.token },
    );
    expect(again.status).toBe(201);
    await taskReaching(f, retried.id, ["succeeded"]);

    expect(await list("latest=true&status=failed")).toEqual([[failed.id, "failed"]]);
    expect(await list("latest=true")).toEqual([
      [retried.id, "succeeded"],
      [failed.id, "failed"],
    ]);
    // Without the flag every task is listed, as before.
    expect(await list(`issue_id=${retried.id}`)).toEqual([
      [retried.id, "succeeded"],
      [retried.id, "failed"],
    ]);
    const bad = await f.api.get(`workspaces/${f.ws}/tasks?latest=yes`, { token: f.member.token });
    expect(bad.status).toBe(422);
  });
});
