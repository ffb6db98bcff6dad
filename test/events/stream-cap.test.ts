// The cap on streams open per user (MAX_STREAMS_PER_USER), over every stream kind and every process: one stream too
// many gets 429 with a clear error, and closing one makes room again.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspaceWithRoles, startAppOn, startTestApp, type TestApp } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { createAgent, createIssue, startWorkFixture, taskReaching } from "../work/helpers.ts";
import { SseClient } from "./helpers.ts";

const env = { MAX_STREAMS_PER_USER: "3" };

describe.each(testDialects)("the cap on open streams per user (%s)", (dialect) => {
  let t: TestApp;
  const clients: SseClient[] = [];
  const open = async (url: string, token: string) => {
    const client = await SseClient.open(url, { authorization: `Bearer ${token}` });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    t = await startTestApp(dialect, { env });
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    await t.close();
  });

  it("a stream over the cap is refused with 429; closing one makes room", async () => {
    const ws = await createWorkspaceWithRoles(t.api);
    const url = `${t.url}/api/v1/workspaces/${ws.workspaceId}/events/stream`;
    const streams = [];
    for (let index = 0; index < 3; index++) streams.push(await open(url, ws.member.token));
    expect(streams.map((stream) => stream.status)).toEqual([200, 200, 200]);

    const refused = await fetch(url, { headers: { authorization: `Bearer ${ws.member.token}` } });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({
      detail: "Too many open streams: at most 3 per user. Close one (or wait for one to end) first.",
    });
    // Another user of the same workspace is not held back.
    expect((await open(url, ws.admin.token)).status).toBe(200);

    streams[0]!.close();
    const reopened = await eventually(async () => {
      const client = await open(url, ws.member.token);
      return client.status === 200 ? client : undefined;
    }, "room for a stream once one closed");
    expect(reopened.ended).toBe(false);
  });
});

describe.each(testDialects)("the cap counts every kind of stream (%s)", (dialect) => {
  it("run streams and event streams share one user's cap", async () => {
    const f = await startWorkFixture(dialect, { env });
    const clients: SseClient[] = [];
    try {
      f.model.setDefault({ text: "Done." });
      const agent = await createAgent(f, { name: "Gated", runtime_config: { approval_required: ["create_issue"] } });
      f.model.reply({ text: "Filing.", toolCalls: [{ id: "c1", name: "create_issue", arguments: { title: "X" } }] });
      const issue = await createIssue(f, { assignee_type: "agent", assignee_id: agent.id });
      const task = await taskReaching(f, issue.id, ["waiting_approval"]);
      const headers = { authorization: `Bearer ${f.member.token}` };
      const runUrl = `${f.t.url}/api/v1/workspaces/${f.ws}/runs/${task.run_id}/events`;
      const eventsUrl = `${f.t.url}/api/v1/workspaces/${f.ws}/events/stream`;
      for (const url of [runUrl, runUrl, eventsUrl]) clients.push(await SseClient.open(url, headers));
      expect(clients.map((client) => client.status)).toEqual([200, 200, 200]);
      expect((await fetch(runUrl, { headers })).status).toBe(429);
      expect((await fetch(eventsUrl, { headers })).status).toBe(429);
    } finally {
      for (const client of clients) client.close();
      await f.close();
    }
  });
});

describe.runIf(testDialects.includes("postgres"))("the cap across processes (postgres)", () => {
  it("holds over two processes on one database", async () => {
    const first = await startTestApp("postgres", { env });
    const second = await startAppOn(first.databaseUrl, "postgres", { env });
    const clients: SseClient[] = [];
    try {
      const ws = await createWorkspaceWithRoles(first.api);
      const path = `/api/v1/workspaces/${ws.workspaceId}/events/stream`;
      const headers = { authorization: `Bearer ${ws.member.token}` };
      for (const base of [first.url, second.url, first.url]) clients.push(await SseClient.open(base + path, headers));
      expect(clients.map((client) => client.status)).toEqual([200, 200, 200]);
      expect((await fetch(second.url + path, { headers })).status).toBe(429);
      expect((await fetch(first.url + path, { headers })).status).toBe(429);
    } finally {
      for (const client of clients) client.close();
      await second.close();
      await first.close();
    }
  });
});
