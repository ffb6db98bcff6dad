import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEV_JWT_SECRET } from "../../src/config.ts";
import { TicketService } from "../../src/events/tickets.ts";
import { createWorkspaceWithRoles, registerUser, startAppOn, startTestApp, type TestApp } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { createIssue } from "../helpers/platform.ts";
import { SseClient } from "./helpers.ts";

describe.each(testDialects)("the event stream (%s)", (dialect) => {
  let t: TestApp;
  const streamUrl = (ws: string, query = "") => `${t.url}/api/v1/workspaces/${ws}/events/stream${query}`;
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const clients: SseClient[] = [];
  const open = async (url: string, headers: Record<string, string> = {}) => {
    const client = await SseClient.open(url, headers);
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    t = await startTestApp(dialect, { events: { keepAliveMs: 200, maxUnreadBytes: 64 * 1024 } });
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    await t.close();
  });

  async function workspaceOf(name: string) {
    const { token, user } = await registerUser(t.api, name);
    const ws = (await t.api.post("workspaces/", { name }, { token })).body.id as string;
    return { token, user, ws };
  }

  it("a subscriber hears each change as it commits: id = seq, event = type, data = the event", async () => {
    const { token, ws } = await workspaceOf("live");
    const stream = await open(streamUrl(ws), bearer(token));
    expect(stream.status).toBe(200);
    expect(stream.headers["content-type"]).toBe("text/event-stream");
    const issue = await createIssue(t.api, ws, token, { title: "Heard live" });
    await t.api.post(`workspaces/${ws}/issues/${issue.id}/comments`, { content: "And this" }, { token });
    await stream.waitForEvents(2);
    const listed = (await t.api.get(`workspaces/${ws}/events?after_seq=1`, { token })).body;
    expect(stream.events.map(({ id, event }) => ({ id, event }))).toEqual([
      { id: "2", event: "issue.created" },
      { id: "3", event: "comment.created" },
    ]);
    expect(stream.data).toEqual(listed);
    expect(stream.data[0]).toMatchObject({ entity_id: issue.id, data: { title: "Heard live" } });
  });

  it("an event too large to ride along with its notification (10 KB) is read from the outbox and heard the same", async () => {
    const { token, ws } = await workspaceOf("large");
    const stream = await open(streamUrl(ws), bearer(token));
    const issue = await createIssue(t.api, ws, token);
    const comments = `workspaces/${ws}/issues/${issue.id}/comments`;
    const comment = (await t.api.post(comments, { content: "a".repeat(5000) }, { token })).body;
    const edited = await t.api.patch(`${comments}/${comment.id}`, { content: "b".repeat(5000) }, { token });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    await t.api.post(comments, { content: "small again" }, { token });
    await stream.waitForEvents(4);
    const listed = (await t.api.get(`workspaces/${ws}/events?after_seq=1`, { token })).body;
    expect(stream.events.map(({ event }) => event)).toEqual([
      "issue.created",
      "comment.created",
      "comment.updated",
      "comment.created",
    ]);
    expect(JSON.stringify(stream.data[2]).length).toBeGreaterThan(10_000);
    expect(stream.data).toEqual(listed);
  });

  it("reconnecting with Last-Event-ID replays exactly what was missed, then goes on live", async () => {
    const { token, ws } = await workspaceOf("resume");
    const first = await open(streamUrl(ws), bearer(token));
    const issue = await createIssue(t.api, ws, token);
    await first.waitForEvents(1);
    first.close();
    const lastSeen = first.events.at(-1)!.id!;
    for (let index = 0; index < 5; index++) {
      await t.api.patch(`workspaces/${ws}/issues/${issue.id}`, { title: `Missed ${index}` }, { token });
    }
    const resumed = await open(streamUrl(ws, "?after_seq=0"), { ...bearer(token), "last-event-id": lastSeen });
    await resumed.waitForEvents(5);
    await t.api.patch(`workspaces/${ws}/issues/${issue.id}`, { title: "Live again" }, { token });
    await resumed.waitForEvents(6);
    expect(resumed.seqs).toEqual([3, 4, 5, 6, 7, 8]);
    expect(resumed.data.map((event) => event.data.changes.title.to)).toEqual([
      "Missed 0",
      "Missed 1",
      "Missed 2",
      "Missed 3",
      "Missed 4",
      "Live again",
    ]);

    const fromStart = await open(streamUrl(ws, "?after_seq=0"), bearer(token));
    await fromStart.waitForEvents(8);
    expect(fromStart.seqs).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it("replay and live meet without a gap or a duplicate while changes keep coming", async () => {
    const { token, ws } = await workspaceOf("meet");
    const issue = await createIssue(t.api, ws, token);
    for (let index = 0; index < 30; index++) {
      await t.api.post(`workspaces/${ws}/issues/${issue.id}/comments`, { content: `Before ${index}` }, { token });
    }
    let writing = true;
    let written = 0;
    const writer = (async () => {
      while (writing) {
        await t.api.post(`workspaces/${ws}/issues/${issue.id}/comments`, { content: "During" }, { token });
        written++;
      }
    })();
    await eventually(() => written >= 3, "the writer to start");
    const streams = await Promise.all(
      [0, 5, 17, 31].map((after) => open(streamUrl(ws, `?after_seq=${after}`), bearer(token))),
    );
    await eventually(() => written >= 20, "more writes");
    writing = false;
    await writer;
    const last = 32 + written;
    for (const [index, after] of [0, 5, 17, 31].entries()) {
      const stream = streams[index]!;
      await eventually(() => stream.seqs.at(-1) === last, `stream after ${after} to reach ${last}`);
      expect(stream.seqs).toEqual(Array.from({ length: last - after }, (_, offset) => after + offset + 1));
    }
  });

  it("types filters the stream; keep-alive comments flow while nothing happens", async () => {
    const { token, ws } = await workspaceOf("filtered");
    const stream = await open(streamUrl(ws, "?after_seq=0&types=comment.*,workspace.created"), bearer(token));
    const issue = await createIssue(t.api, ws, token);
    await t.api.post(`workspaces/${ws}/issues/${issue.id}/comments`, { content: "Wanted" }, { token });
    await t.api.patch(`workspaces/${ws}/issues/${issue.id}`, { title: "Not wanted" }, { token });
    await t.api.post(`workspaces/${ws}/issues/${issue.id}/comments`, { content: "Wanted too" }, { token });
    await stream.waitForEvents(3);
    await eventually(() =>
      stream.frames.some((frame) => frame.comment === " keepalive" || frame.comment === "keepalive"),
    );
    expect(stream.events.map((frame) => [frame.id, frame.event])).toEqual([
      ["1", "workspace.created"],
      ["3", "comment.created"],
      ["5", "comment.created"],
    ]);
  });

  it("credentials: bearer, API key, or a one-minute ticket; 401 before 403 before 422", async () => {
    const ws = await createWorkspaceWithRoles(t.api);
    const other = await workspaceOf("elsewhere");
    const url = streamUrl(ws.workspaceId);

    expect((await open(url)).status).toBe(401);
    expect((await open(streamUrl(ws.workspaceId, "?after_seq=x"))).status).toBe(401);
    expect((await open(url, bearer("not-a-token"))).status).toBe(401);
    expect((await open(url, bearer(ws.outsider.token))).status).toBe(403);
    expect((await open(streamUrl(ws.workspaceId, "?after_seq=x"), bearer(ws.outsider.token))).status).toBe(403);
    const badQuery = await open(streamUrl(ws.workspaceId, "?after_seq=x"), bearer(ws.member.token));
    expect(badQuery.status).toBe(422);
    await badQuery.waitForEnd();
    expect(JSON.parse(badQuery.body).detail[0].loc).toEqual(["query", "after_seq"]);
    expect((await open(url, { ...bearer(ws.member.token), "last-event-id": "nope" })).status).toBe(422);

    const key = (await t.api.post(`workspaces/${ws.workspaceId}/api-keys`, { name: "k" }, { token: ws.admin.token }))
      .body.key;
    expect((await open(url, { "x-api-key": key })).status).toBe(200);
    expect((await open(streamUrl(other.ws), { "x-api-key": key })).status).toBe(403);

    const ticketResponse = await t.api.post(`workspaces/${ws.workspaceId}/events/tickets`, undefined, {
      token: ws.member.token,
    });
    expect(ticketResponse).toMatchObject({ status: 201, body: { ticket: expect.any(String) } });
    const { ticket, expires_at } = ticketResponse.body;
    const lifetime = Date.parse(`${expires_at}Z`) - Date.now();
    expect(lifetime).toBeGreaterThan(30_000);
    expect(lifetime).toBeLessThanOrEqual(60_000);
    expect((await t.api.post(`workspaces/${ws.workspaceId}/events/tickets`)).status).toBe(401);
    expect(
      (await t.api.post(`workspaces/${ws.workspaceId}/events/tickets`, undefined, { token: ws.outsider.token })).status,
    ).toBe(403);

    const byTicket = await open(`${url}?ticket=${encodeURIComponent(ticket)}&after_seq=0`);
    expect(byTicket.status).toBe(200);
    await byTicket.waitForEvents(4);
    expect(byTicket.events.map((frame) => frame.event)).toEqual([
      "workspace.created",
      "member.added",
      "member.added",
      "api_key.created",
    ]);
    // The same ticket works again within its minute (EventSource reconnects with the same URL).
    expect((await open(`${url}?ticket=${encodeURIComponent(ticket)}`)).status).toBe(200);

    const elsewhere = await open(`${streamUrl(other.ws)}?ticket=${encodeURIComponent(ticket)}`);
    expect(elsewhere.status).toBe(403);
    await elsewhere.waitForEnd();
    expect(JSON.parse(elsewhere.body)).toEqual({ detail: "This ticket is for another workspace" });

    const tickets = new TicketService(DEV_JWT_SECRET);
    const expired = tickets.issue(
      { workspaceId: ws.workspaceId, userId: ws.member.user.id },
      Date.now() - 61_000,
    ).ticket;
    const late = await open(`${url}?ticket=${encodeURIComponent(expired)}`);
    expect(late.status).toBe(401);
    await late.waitForEnd();
    expect(JSON.parse(late.body)).toEqual({ detail: "Ticket expired" });
    const forged = new TicketService("another secret that is long enough!!").issue({
      workspaceId: ws.workspaceId,
      userId: ws.member.user.id,
    }).ticket;
    expect((await open(`${url}?ticket=${encodeURIComponent(forged)}`)).status).toBe(401);
    expect((await open(`${url}?ticket=garbage`)).status).toBe(401);
    // A ticket is not a login token.
    expect((await t.api.get("auth/me", { token: ticket })).status).toBe(401);
    // Nor does a ticket outlive its holder's membership.
    const outsiderTicket = tickets.issue({ workspaceId: ws.workspaceId, userId: ws.outsider.user.id }).ticket;
    expect((await open(`${url}?ticket=${encodeURIComponent(outsiderTicket)}`)).status).toBe(403);
    expect((await open(`${url}?ticket=${encodeURIComponent(ticket)}&types=bad`)).status).toBe(422);
  });

  it("a member who leaves, or whose key is revoked, stops hearing the workspace", async () => {
    const ws = await createWorkspaceWithRoles(t.api);
    const base = `workspaces/${ws.workspaceId}`;
    const key = (await t.api.post(`${base}/api-keys`, { name: "k" }, { token: ws.admin.token })).body;
    const byMember = await open(streamUrl(ws.workspaceId), bearer(ws.member.token));
    const byKey = await open(streamUrl(ws.workspaceId), { "x-api-key": key.key });
    const byOwner = await open(streamUrl(ws.workspaceId), bearer(ws.owner.token));
    await t.api.delete(`${base}/members/${ws.member.user.id}`, { token: ws.admin.token });
    await byMember.waitForEnd();
    await t.api.delete(`${base}/api-keys/${key.id}`, { token: ws.admin.token });
    await byKey.waitForEnd();
    await createIssue(t.api, ws.workspaceId, ws.owner.token);
    await byOwner.waitForEvents(3);
    expect(byOwner.ended).toBe(false);
    expect(byMember.events.some((frame) => frame.event === "issue.created")).toBe(false);
  });

  it("a deleted workspace's stream ends", async () => {
    const { token, ws } = await workspaceOf("deleted");
    const stream = await open(streamUrl(ws), bearer(token));
    await createIssue(t.api, ws, token);
    await stream.waitForEvents(1);
    expect((await t.api.delete(`workspaces/${ws}`, { token })).status).toBe(204);
    await stream.waitForEnd();
  });

  it("a subscriber that stops reading is dropped, and resumes with Last-Event-ID without loss", async () => {
    const { token, ws } = await workspaceOf("slow");
    const issue = await createIssue(t.api, ws, token);
    const slow = await open(streamUrl(ws), bearer(token));
    const healthy = await open(streamUrl(ws), bearer(token));
    slow.pause();
    const big = "x".repeat(99_000);
    // Each update's event carries the old and the new description, ~200 KB: 60 of them are far more than the socket
    // buffers between server and client hold, so the server finds the slow client's bytes piling up.
    const updates = 60;
    for (let index = 0; index < updates; index++) {
      await t.api.patch(`workspaces/${ws}/issues/${issue.id}`, { description: `${index}${big}` }, { token });
      await healthy.waitForEvents(index + 1);
    }
    slow.resume();
    await slow.waitForEnd();
    expect(healthy.ended).toBe(false);
    expect(slow.seqs.length).toBeLessThan(updates);
    expect(slow.seqs).toEqual(slow.seqs.map((_, index) => 3 + index));

    const lastSeen = slow.events.at(-1)?.id ?? "2";
    const resumed = await open(streamUrl(ws), { ...bearer(token), "last-event-id": lastSeen });
    await eventually(() => resumed.seqs.at(-1) === 2 + updates, "the rest");
    expect([...slow.seqs, ...resumed.seqs]).toEqual(Array.from({ length: updates }, (_, index) => 3 + index));
  });
});

// Any request may reach any process: a subscriber of one hears the changes made through another.
describe.each(testDialects.filter((dialect) => dialect === "postgres"))("two server processes (%s)", (dialect) => {
  let a: TestApp;
  let b: TestApp;
  const clients: SseClient[] = [];
  const open = async (app: TestApp, ws: string, token: string, query = "") => {
    const client = await SseClient.open(`${app.url}/api/v1/workspaces/${ws}/events/stream${query}`, {
      authorization: `Bearer ${token}`,
    });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    a = await startTestApp(dialect);
    b = await startAppOn(a.databaseUrl, dialect);
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    await b.close();
    await a.close();
  });

  it("a change through one process reaches the subscribers of both, in seq order, once", async () => {
    const { token } = await registerUser(a.api, "two");
    const ws = (await a.api.post("workspaces/", { name: "Two" }, { token })).body.id;
    const onA = await open(a, ws, token);
    const onB = await open(b, ws, token);
    const issue = await createIssue(a.api, ws, token);
    await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        (index % 2 === 0 ? a : b).api.post(
          `workspaces/${ws}/issues/${issue.id}/comments`,
          { content: `${index}` },
          { token },
        ),
      ),
    );
    for (const stream of [onA, onB]) {
      await stream.waitForEvents(21);
      expect(stream.seqs).toEqual(Array.from({ length: 21 }, (_, index) => index + 2));
    }
  });

  it("a listener that loses its connection reconnects and catches up with what it missed", async () => {
    const { token } = await registerUser(a.api, "reconnect");
    const ws = (await a.api.post("workspaces/", { name: "Reconnect" }, { token })).body.id;
    const onB = await open(b, ws, token);
    await createIssue(a.api, ws, token);
    await onB.waitForEvents(1);
    const terminated = await b.db.executeQuery(
      sql`select pg_terminate_backend(pid) from pg_stat_activity
          where datname = current_database() and query = 'LISTEN workspace_events'`.compile(b.db),
    );
    expect(terminated.rows).toHaveLength(2); // the listeners of both processes
    for (let index = 0; index < 3; index++) await createIssue(a.api, ws, token, { title: `While away ${index}` });
    await onB.waitForEvents(4);
    expect(onB.seqs).toEqual([2, 3, 4, 5]);
  });
});
