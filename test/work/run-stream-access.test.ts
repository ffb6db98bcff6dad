// A run's event stream ends when its viewer loses access, as the workspace event stream does: an API key revoked, a
// member removed. (A run waiting for an approval keeps its stream open, so only the loss of access can end it.)
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SseClient } from "../events/helpers.ts";
import { registerUser } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";
import { createAgent, createIssue, startWorkFixture, taskReaching, type WorkFixture } from "./helpers.ts";

describe.each(testDialects)("a run stream re-checks its viewer (%s)", (dialect) => {
  let f: WorkFixture;
  const clients: SseClient[] = [];
  beforeAll(async () => {
    f = await startWorkFixture(dialect);
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    await f.close();
  });
  beforeEach(() => {
    f.model.reset();
    f.model.setDefault({ text: "Done." });
  });

  /** A run that stops for an approval: its stream stays open until it is decided. */
  async function waitingRun(name: string) {
    const agent = await createAgent(f, { name, runtime_config: { approval_required: ["create_issue"] } });
    f.model.reply({
      text: "I will file it.",
      toolCalls: [{ id: `call_${name}`, name: "create_issue", arguments: { title: `From ${name}` } }],
    });
    const issue = await createIssue(f, { assignee_type: "agent", assignee_id: agent.id });
    return taskReaching(f, issue.id, ["waiting_approval"]);
  }

  async function follow(runId: string, headers: Record<string, string>) {
    const client = await SseClient.open(`${f.t.url}/api/v1/workspaces/${f.ws}/runs/${runId}/events`, headers);
    clients.push(client);
    expect(client.status).toBe(200);
    // The approval request is among the events so far: the stream is open and caught up.
    await client.waitForEvents(1);
    return client;
  }

  it("ends when the viewer's API key is revoked; another viewer's stream goes on", async () => {
    const task = await waitingRun("Keyed");
    const key = (await f.api.post(`workspaces/${f.ws}/api-keys`, { name: "viewer" }, { token: f.admin.token })).body;
    const byKey = await follow(task.run_id, { "x-api-key": key.key });
    const byOwner = await follow(task.run_id, { authorization: `Bearer ${f.owner.token}` });
    expect((await f.api.delete(`workspaces/${f.ws}/api-keys/${key.id}`, { token: f.admin.token })).status).toBe(204);
    await byKey.waitForEnd();
    expect(byOwner.ended).toBe(false);
  });

  it("ends when the viewer is removed from the workspace", async () => {
    const task = await waitingRun("Removed");
    const { user, token } = await registerUser(f.api, "viewer");
    const added = await f.api.post(`workspaces/${f.ws}/members`, { user_id: user.id }, { token: f.owner.token });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const byMember = await follow(task.run_id, { authorization: `Bearer ${token}` });
    const removed = await f.api.delete(`workspaces/${f.ws}/members/${user.id}`, { token: f.owner.token });
    expect(removed.status).toBe(204);
    await byMember.waitForEnd();
  });
});
