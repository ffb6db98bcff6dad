// GET me/inbox/stream: each person hears only their own new items, live, over a real socket; with a bearer token, an
// API key (its workspace only) or a one-minute ticket; across processes on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SseClient } from "../events/helpers.ts";
import { registerUser, startAppOn, startTestApp, type TestApp, type TestUser } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { createIssue } from "../helpers/platform.ts";

describe.each(testDialects)("the inbox stream (%s)", (dialect) => {
  let t: TestApp;
  const clients: SseClient[] = [];
  const open = async (query: string, headers: Record<string, string> = {}, base = t.url) => {
    const client = await SseClient.open(`${base}/api/v1/me/inbox/stream${query}`, headers);
    clients.push(client);
    return client;
  };
  const bearer = (user: TestUser) => ({ authorization: `Bearer ${user.token}` });

  beforeAll(async () => {
    t = await startTestApp(dialect, { events: { keepAliveMs: 200 }, env: { MAX_STREAMS_PER_USER: "3" } });
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    await t.close();
  });

  let people = 0;
  /** A person whose name has a space (registerUser takes it for the email too). */
  async function named(name: string): Promise<TestUser> {
    people += 1;
    const email = `named-${process.pid}-${people}-${Date.now()}@example.com`;
    const response = await t.api.post("auth/register", { email, password: "correct horse battery", name });
    expect(response.status).toBe(201);
    return response.body;
  }

  async function team() {
    const boss = await registerUser(t.api, "boss");
    const ada = await named("Ada Lovelace");
    const grace = await registerUser(t.api, "grace");
    const ws = (await t.api.post("workspaces/", { name: "Streams" }, { token: boss.token })).body.id as string;
    for (const person of [ada, grace]) {
      await t.api.post(`workspaces/${ws}/members`, { user_id: person.user.id }, { token: boss.token });
    }
    const issue = await createIssue(t.api, ws, boss.token, { title: "Live" });
    const comment = (content: string, by = boss) =>
      t.api.post(`workspaces/${ws}/issues/${issue.id}/comments`, { content }, { token: by.token });
    return { boss, ada, grace, ws, issue, comment };
  }

  it("two people's streams are kept apart: each hears only their own items", async () => {
    const { ada, grace, comment } = await team();
    const adaStream = await open("", bearer(ada));
    const graceStream = await open("", bearer(grace));
    expect(adaStream.status).toBe(200);
    expect(adaStream.headers["content-type"]).toBe("text/event-stream");

    await comment("@ada-lovelace first");
    await comment("@grace second");
    await comment("@Ada Lovelace and @grace third");
    await adaStream.waitForEvents(2);
    await graceStream.waitForEvents(2);
    expect(adaStream.events.map((frame) => frame.event)).toEqual(["inbox.item", "inbox.item"]);
    expect(adaStream.data.map((item) => item.body)).toEqual(["@ada-lovelace first", "@Ada Lovelace and @grace third"]);
    expect(graceStream.data.map((item) => item.body)).toEqual(["@grace second", "@Ada Lovelace and @grace third"]);
    // Each frame is the item as the list shows it.
    const listed = (await t.api.get("me/inbox", { token: ada.token })).body;
    expect(adaStream.data).toEqual([listed[1], listed[0]]);
  });

  it("a browser's ticket opens the stream; an event-stream ticket or a bad one does not", async () => {
    const { ada, ws, comment } = await team();
    const issued = await t.api.post("me/inbox/tickets", undefined, { token: ada.token });
    expect(issued.status).toBe(201);
    expect(issued.body).toEqual({ ticket: expect.any(String), expires_at: expect.any(String) });
    const stream = await open(`?ticket=${encodeURIComponent(issued.body.ticket)}`);
    expect(stream.status).toBe(200);
    await comment("@ada-lovelace by ticket");
    await stream.waitForEvents(1);
    expect(stream.data[0].body).toBe("@ada-lovelace by ticket");

    const eventTicket = (await t.api.post(`workspaces/${ws}/events/tickets`, undefined, { token: ada.token })).body;
    for (const ticket of [eventTicket.ticket, "nonsense", `${issued.body.ticket}x`]) {
      const refused = await fetch(`${t.url}/api/v1/me/inbox/stream?ticket=${encodeURIComponent(ticket)}`);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toEqual({ detail: "Invalid ticket" });
    }
    expect((await fetch(`${t.url}/api/v1/me/inbox/stream`)).status).toBe(401);
  });

  it("an API key's stream hears only its workspace, and ends when the key is revoked", async () => {
    const { boss, ada, ws, comment } = await team();
    const elsewhere = (await t.api.post("workspaces/", { name: "Other" }, { token: boss.token })).body.id;
    await t.api.post(`workspaces/${elsewhere}/members`, { user_id: ada.user.id }, { token: boss.token });
    const otherIssue = await createIssue(t.api, elsewhere, boss.token);
    const key = (await t.api.post(`workspaces/${ws}/api-keys`, { name: "feed" }, { token: boss.token })).body;
    // The key is the boss's: the boss hears items of `ws` only.
    const stream = await open("", { "x-api-key": key.key });
    expect(stream.status).toBe(200);
    await t.api.post(
      `workspaces/${elsewhere}/issues/${otherIssue.id}/comments`,
      { content: "@boss elsewhere" },
      { token: ada.token },
    );
    await comment("@boss here", ada);
    await stream.waitForEvents(1);
    expect(stream.data.map((item) => item.body)).toEqual(["@boss here"]);

    const revoked = await t.api.delete(`workspaces/${ws}/api-keys/${key.id}`, { token: boss.token });
    expect(revoked.status).toBe(204);
    await stream.waitForEnd();
    expect(stream.events).toHaveLength(1);
  });

  it("items read in one place tell the person's other streams (inbox.read), of that workspace only", async () => {
    const { boss, ada, ws, comment } = await team();
    const elsewhere = (await t.api.post("workspaces/", { name: "Elsewhere" }, { token: boss.token })).body.id;
    await t.api.post(`workspaces/${elsewhere}/members`, { user_id: ada.user.id }, { token: boss.token });
    const otherIssue = await createIssue(t.api, elsewhere, boss.token);
    const key = (await t.api.post(`workspaces/${elsewhere}/api-keys`, { name: "feed" }, { token: boss.token })).body;
    const everywhere = await open("", bearer(boss));
    const elsewhereOnly = await open("", { "x-api-key": key.key });

    await comment("@boss one", ada);
    await comment("@boss two", ada);
    await everywhere.waitForEvents(2);
    const [newest] = (await t.api.get(`me/inbox?workspace_id=${ws}`, { token: boss.token })).body;
    expect((await t.api.post(`me/inbox/${newest.id}/read`, {}, { token: boss.token })).status).toBe(200);
    await everywhere.waitForEvents(3);
    expect(everywhere.events[2]!.event).toBe("inbox.read");
    expect(everywhere.data[2]).toEqual({ workspace_id: ws });
    expect((await t.api.post(`me/inbox/read-all?workspace_id=${ws}`, {}, { token: boss.token })).status).toBe(200);
    await everywhere.waitForEvents(4);
    expect(everywhere.events[3]!.event).toBe("inbox.read");
    expect((await t.api.get("me/inbox/count", { token: boss.token })).body.unread).toBe(0);

    // The key's stream heard none of that: its first frame is its own workspace's next item.
    await t.api.post(
      `workspaces/${elsewhere}/issues/${otherIssue.id}/comments`,
      { content: "@boss there" },
      { token: ada.token },
    );
    await elsewhereOnly.waitForEvents(1);
    expect(elsewhereOnly.events.map((frame) => frame.event)).toEqual(["inbox.item"]);
  });

  it("counts against the per-user cap on open streams", async () => {
    const { grace } = await team();
    const streams = [await open("", bearer(grace)), await open("", bearer(grace)), await open("", bearer(grace))];
    expect(streams.map((stream) => stream.status)).toEqual([200, 200, 200]);
    const refused = await fetch(`${t.url}/api/v1/me/inbox/stream`, { headers: bearer(grace) });
    expect(refused.status).toBe(429);
    streams[0]!.close();
    await eventually(async () => {
      const retried = await fetch(`${t.url}/api/v1/me/inbox/stream`, { headers: bearer(grace) });
      if (retried.status === 200) await retried.body?.cancel();
      return retried.status === 200;
    }, "room for one more stream");
  });

  it.runIf(dialect === "postgres")("an item made by one process reaches a stream held by another", async () => {
    const other = await startAppOn(t.databaseUrl, dialect, { events: { keepAliveMs: 200 } });
    try {
      const { ada, comment } = await team();
      const stream = await open("", bearer(ada), other.url);
      expect(stream.status).toBe(200);
      await comment("@ada-lovelace across processes");
      await stream.waitForEvents(1);
      expect(stream.data[0].body).toBe("@ada-lovelace across processes");
    } finally {
      for (const client of clients) client.close();
      await other.close();
    }
  });
});
